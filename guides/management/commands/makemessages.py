"""``makemessages`` that also finds the table headings built in Python.

``guides.templatetags.guide_rendering._heading`` looks a literal up in the catalogue itself
(kept per language), so xgettext must know it as a keyword: without it, ``make messages``
dropped those headings' translations as unused.
"""

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=_heading"]
