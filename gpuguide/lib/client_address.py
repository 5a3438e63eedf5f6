"""The address of the client that sent a request, believing only our own proxies.

Sign-in throttling (django-axes and ``accounts.throttling``), the rate limits and anything else
that counts per client ask ``client_ip``; ``TRUSTED_PROXIES`` says whose ``X-Forwarded-For``
is believed (none by default).
"""

from ipaddress import ip_address

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    """The address of whoever sent ``request``: REMOTE_ADDR, or behind ``TRUSTED_PROXIES`` the
    nearest ``X-Forwarded-For`` entry that is not one of them.

    The header is read from the right, where each trusted proxy appended the address it saw;
    everything to the left of the first untrusted entry was written by the client and could be
    anything, so it is never believed. A malformed entry ends the walk at the last good one.
    """
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
    """Whether ``request`` came straight from one of ``TRUSTED_PROXIES`` (whose headers, such
    as ``X-Request-ID``, may then be believed)."""
    return _trusted(request.META.get("REMOTE_ADDR", ""))


def _trusted(address: str) -> bool:
    try:
        parsed = ip_address(address)
    except ValueError:
        return False
    return any(parsed in network for network in settings.TRUSTED_PROXIES)
