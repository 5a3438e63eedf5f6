"""record_price_check --provider gpuwithcrypto --date 2026-11-29 a100-80gb=0.92 h100=2.32"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from pricing.services import (
    PriceCheckError,
    parse_check_date,
    parse_price_pairs,
    price_check_record,
)


class Command(BaseCommand):
    help = (
        "Record a dated price check for one provider: GPU=USD-per-GPU-hour pairs. "
        "Saves all prices or none; exits non-zero with a one-line reason on bad input."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--provider", required=True, help="provider slug, e.g. gpuwithcrypto")
        parser.add_argument(
            "--date", dest="checked_on", required=True, help="day of the check, YYYY-MM-DD"
        )
        parser.add_argument("--source-url", default="", help="where the prices were read")
        parser.add_argument("--note", default="")
        parser.add_argument(
            "--gpus-in-quote",
            type=int,
            default=1,
            help="GPUs each quoted price covers (8 for an 8-GPU instance price)",
        )
        parser.add_argument(
            "--recorded-by", default=None, metavar="USERNAME", help="the staff user to credit"
        )
        parser.add_argument("prices", nargs="*", metavar="GPU=PRICE")

    def handle(self, *args, **options) -> None:
        try:
            prices = parse_price_pairs(options["prices"])
            if options["gpus_in_quote"] < 1:
                raise PriceCheckError("--gpus-in-quote must be at least 1")
            recorder = _recorder(options["recorded_by"])
            check = price_check_record(
                provider_slug=options["provider"],
                checked_on=parse_check_date(options["checked_on"]),
                prices=prices,
                gpus_in_quote=dict.fromkeys(prices, options["gpus_in_quote"]),
                source_url=options["source_url"],
                note=options["note"],
                recorded_by=recorder,
                today=timezone.localdate(),
            )
        except PriceCheckError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            self.style.SUCCESS(
                f"Recorded {len(prices)} price(s) for {check.provider.slug} on "
                f"{check.checked_on.isoformat()}."
            )
        )


def _recorder(username: str | None):
    if username is None:
        return None
    user = get_user_model().objects.filter(username=username, is_active=True).first()
    if user is None:
        raise PriceCheckError(f"no active user {username!r} to credit with this check")
    return user
