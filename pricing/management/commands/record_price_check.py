"""record_price_check --provider gpuwithcrypto --date 2026-11-29 a100-80gb=0.92 h100=2.32

A correction of that day's check, kept in the history as superseded:
record_price_check --provider gpuwithcrypto --date 2026-11-29 --supersede \
    --reason "H100 read from the wrong row" --recorded-by ramon a100-80gb=0.92 h100=2.23

The admin's rules for typed text and the service's rules hold, confirmations included.
"""

from django.core.management.base import BaseCommand, CommandError, no_translations

from pricing import services
from pricing.domain import price_changes

# Each option's text, with the name the refusal gives it.
TEXT_OPTIONS = {
    "provider": "--provider",
    "checked_on": "--date",
    "source_url": "--source-url",
    "note": "--note",
    "gpus_in_quote": "--gpus-in-quote",
    "recorded_by": "--recorded-by",
    "reason": "--reason",
}
CONFIRM_JUMP_HOW = "if the prices are right, run the command again with --confirm-jump"
CONFIRM_OLD_DATE_HOW = "if the day is right, run the command again with --confirm-old-date"


class Command(BaseCommand):
    help = (
        "Record a dated price check for one provider: GPU=USD-per-hour pairs "
        f"({services.MIN_USD_PER_HOUR} to {services.MAX_USD_PER_HOUR}, at most "
        f"{services.PRICE_DECIMAL_PLACES} decimals). Saves all prices or none; exits non-zero "
        "with a one-line reason on bad input."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--provider", required=True, help="provider slug, e.g. gpuwithcrypto")
        parser.add_argument(
            "--date",
            dest="checked_on",
            required=True,
            help=f"day of the check, YYYY-MM-DD, from {services.EARLIEST_CHECK_DAY} to today",
        )
        parser.add_argument(
            "--source-url", default="", help="where the prices were read (http or https)"
        )
        parser.add_argument("--note", default="")
        parser.add_argument(
            "--gpus-in-quote",
            default=str(services.MIN_GPUS_IN_QUOTE),
            help=(
                "GPUs each quoted price covers (8 for an 8-GPU instance price), "
                f"{services.MIN_GPUS_IN_QUOTE} to {services.MAX_GPUS_IN_QUOTE}"
            ),
        )
        parser.add_argument(
            "--recorded-by",
            default=None,
            metavar="USERNAME",
            help=(
                "the staff user to credit; must be allowed to add price checks. The check (and "
                "a check it corrects) then appears in the admin's History, and its provider's, "
                "under this user; without --recorded-by no History entry is written"
            ),
        )
        parser.add_argument(
            "--supersede",
            action="store_true",
            help=(
                "correct the provider's check of that day: record these prices instead and "
                "keep the mistaken check in the history, marked superseded (needs --reason "
                "and --recorded-by)"
            ),
        )
        parser.add_argument("--reason", default="", help="with --supersede: what was wrong")
        parser.add_argument(
            "--confirm-jump",
            action="store_true",
            help=(
                f"the prices are right although some are more than "
                f"{price_changes.JUMP_FACTOR}× or less than 1/{price_changes.JUMP_FACTOR} of "
                "the provider's last price of that GPU (without it such a check is refused, "
                "naming each price)"
            ),
        )
        parser.add_argument(
            "--confirm-old-date",
            action="store_true",
            help=(
                f"the day is right although it is more than {price_changes.OLD_CHECK_DAYS} "
                "days back (without it such a check is refused)"
            ),
        )
        parser.add_argument("prices", nargs="*", metavar="GPU=PRICE")

    @no_translations  # the CLI speaks English whatever the settings' language
    def handle(self, *args, **options) -> None:
        try:
            for name, label in TEXT_OPTIONS.items():
                if options[name] is not None:
                    services.validate_typed_text(label=label, value=options[name])
            for pair in options["prices"]:
                services.validate_typed_text(label="GPU=PRICE", value=pair)
            confirmations = services.Confirmations(
                jump=options["confirm_jump"],
                old_date=options["confirm_old_date"],
                jump_how=CONFIRM_JUMP_HOW,
                old_date_how=CONFIRM_OLD_DATE_HOW,
            )
            # Raw text goes to the service, which checks its form before parsing it.
            prices = services.parse_price_pairs(pairs=options["prices"])
            count = services.parse_gpus_in_quote(value=options["gpus_in_quote"])
            checked_on = services.parse_check_date(value=options["checked_on"])
            source_url = services.validate_source_url(value=options["source_url"])
            recorder = (
                None
                if options["recorded_by"] is None
                else services.recorder_for_username(username=options["recorded_by"])
            )
            saved = {
                "prices": prices,
                "gpus_in_quote": dict.fromkeys(prices, count),
                "source_url": source_url,
                "note": options["note"],
                "recorded_by": recorder,
                "confirmations": confirmations,
            }
            if options["supersede"]:
                mistaken = services.check_to_supersede(
                    provider_slug=options["provider"], checked_on=checked_on
                )
                check = services.price_check_supersede(
                    check=mistaken, reason=options["reason"], **saved
                )
            else:
                check = services.price_check_record(
                    provider_slug=options["provider"], checked_on=checked_on, **saved
                )
        except services.PriceCheckError as exc:
            raise CommandError(str(exc)) from None
        done = "Corrected" if options["supersede"] else "Recorded"
        self.stdout.write(
            self.style.SUCCESS(
                f"{done} {len(prices)} price(s) for {check.provider.slug} on "
                f"{check.checked_on.isoformat()}."
            )
        )
