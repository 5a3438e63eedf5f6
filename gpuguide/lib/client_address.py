"""The address of the client that sent a request, believing only ``TRUSTED_PROXIES``."""

from ipaddress import ip_address

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """REMOTE_ADDR, or behind ``TRUSTED_PROXIES`` the nearest ``X-Forwarded-For`` entry that is
    not one of them: read from the right, where each proxy appended what it saw (the client
    wrote whatever is left of that). A malformed entry ends the walk at the last good one."""
    remote = request.META.get("REMOTE_ADDR", "")
    if not _trusted(remote):
        return remote
    client = remote
    hops = request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
    for hop in reversed([hop.strip() for hop in hops if hop.strip()]):
        try:
            ip_address(hop)
        except ValueError:
            break
        client = hop
        if not _trusted(hop):
            break
    return client


def from_trusted_proxy(request: HttpRequest) -> bool:
    """Whether ``request`` came straight from one of ``TRUSTED_PROXIES``."""
    return _trusted(request.META.get("REMOTE_ADDR", ""))


def _trusted(address: str) -> bool:
    try:
        parsed = ip_address(address)
    except ValueError:
        return False
    return any(parsed in network for network in settings.TRUSTED_PROXIES)
