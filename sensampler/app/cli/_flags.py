"""Command-line flags that several subcommands share, each worded in one place.

The flags of a release's settings are derived from the fields of
:class:`~sensampler.settings.ReleaseSettings` (:func:`add_settings_flags`: a
field ``worst_case_epsilon`` is ``--worst-case-epsilon``, with its help and
choices) and read back into one record (:func:`settings_from_args`), each value
by the field's own reader, naming the flag as typed: a new setting is one new
field of the record, and every command that takes settings offers it.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Mapping
from dataclasses import fields

from ..._lib.domains import NEIGHBOUR_RELATIONS
from ...settings import ReleaseSettings, parse_number, read_setting

__all__ = [
    "add_neighbours_flag",
    "add_settings_flags",
    "flag_of",
    "in_flag_words",
    "integer_flag",
    "number_flag",
    "setting_help",
    "settings_from_args",
]


def flag_of(name: str) -> str:
    """The command-line flag of the setting ``name`` (``--worst-case-epsilon``)."""
    return "--" + name.replace("_", "-")


def add_settings_flags(
    p: argparse.ArgumentParser,
    *,
    required: Iterable[str] = (),
    omit: Iterable[str] = (),
    helps: Mapping[str, str] | None = None,
    choices: Mapping[str, tuple[str, ...]] | None = None,
) -> None:
    """Add a flag for every field of :class:`~sensampler.settings.ReleaseSettings`.

    Each flag is ``--`` and the field's name, hyphenated, with the field's help
    and choices; its value is text, read by :func:`settings_from_args`, and an
    absent flag (``None``) leaves the record's default.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser (or argument group).
    required : iterable of str, optional
        Fields whose flag must be given (``"epsilon"`` for a release).
    omit : iterable of str, optional
        Fields the subcommand does not offer.
    helps : mapping, optional
        Field name -> the subcommand's own help of its flag.
    choices : mapping, optional
        Field name -> the values the subcommand offers (fewer than the field's).
    """
    required, omit = set(required), set(omit)
    helps, choices = dict(helps or {}), dict(choices or {})
    for setting in fields(ReleaseSettings):
        if setting.name in omit:
            continue
        p.add_argument(
            flag_of(setting.name),
            dest=setting.name,
            default=None,
            required=setting.name in required,
            choices=choices.get(setting.name, setting.metadata["choices"]),
            help=helps.get(setting.name, setting.metadata["help"]),
        )


def settings_from_args(
    args: argparse.Namespace, *, record_only: str | None = None
) -> ReleaseSettings:
    """The settings the flags of :func:`add_settings_flags` ask for, checked.

    Each value given is read by its field's reader
    (:func:`~sensampler.settings.read_setting`: numbers by
    :func:`~sensampler.settings.parse_number`, ``--bounds`` by
    :func:`~sensampler.settings.parse_bounds`), so an error names the flag as
    typed (``--epsilon must be > 0.0, got --epsilon=-1.0.``); the record then
    checks what depends on several of them.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed flags.
    record_only : str, optional
        The command, when it is about one record only: ``--privacy-unit`` is
        then refused by name (:meth:`ReleaseSettings.require_record_unit`).

    Returns
    -------
    ReleaseSettings
    """
    given = {
        setting.name: read_setting(
            setting.name, getattr(args, setting.name), flag_of(setting.name)
        )
        for setting in fields(ReleaseSettings)
        if getattr(args, setting.name, None) is not None
    }
    try:
        settings = ReleaseSettings.from_mapping(given, name="the flags")
        if record_only is not None:
            settings.require_record_unit(record_only)
        return settings
    except ValueError as exc:  # a check between fields, in the record's words
        raise ValueError(in_flag_words(str(exc))) from None


def in_flag_words(message: str, names: Mapping[str, str] | None = None) -> str:
    """``message`` with each ``field=value`` of a setting written as its flag and
    value, as typed: ``mechanism='gaussian' needs delta > 0, got delta=0.0.``
    becomes ``--mechanism gaussian needs delta > 0, got --delta 0.0.``.

    ``names`` maps other parameters to their flags instead (``{"random_state":
    "--seed"}``: ``random_state must be >= 0, got random_state=-1.`` becomes
    ``--seed must be >= 0, got --seed -1.``); without it, every
    field of :class:`~sensampler.settings.ReleaseSettings` is its own flag.
    """
    if names is None:
        names = {setting.name: flag_of(setting.name) for setting in fields(ReleaseSettings)}
    for name, flag in names.items():
        message = re.sub(rf"^{name}(?= )", flag, message)  # the subject: "epsilon must"
        message = re.sub(
            rf"\b{name}=(?:'([^']*)'|([^\s,;:)]+?))(?=[\s,;:)]|\.(?:\s|$)|$)",
            lambda m, flag=flag: f"{flag} {m.group(1) or m.group(2)}",
            message,
        )
    return message


def add_neighbours_flag(
    p: argparse.ArgumentParser, about: str, *, default: str | None, note: str = ""
) -> None:
    """Add ``--neighbours``: the neighbouring relation, one of ``NEIGHBOUR_RELATIONS``.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The subcommand's parser.
    about : str
        What the relation applies to (the help's first words).
    default : str or None
        The flag's default (``None``: the subcommand reads its own default,
        replace-one, later).
    note : str, optional
        What the subcommand adds about add/remove pairs.
    """
    p.add_argument(
        "--neighbours",
        default=default,
        choices=NEIGHBOUR_RELATIONS.values,
        help=f"{about}: replace-one (D and D with one record replaced; the default) "
        f"or add-remove (D of n - 1 records and D with one record added; n >= 2{note})",
    )


def number_flag(flag: str):
    """An argparse ``type`` reading ``flag``'s value by
    :func:`~sensampler.settings.parse_number` (ASCII digits only: no ``1_0``, no
    other scripts' digits), as the settings' flags are read."""

    def number(text: str) -> float:
        return parse_number(flag, text)

    return number


def integer_flag(flag: str):
    """An argparse ``type`` reading ``flag``'s value as an integer in ASCII
    digits, with an optional sign (``int`` alone also takes ``1_0`` and other
    scripts' digits)."""

    def integer(text: str) -> int:
        stripped = text.strip()
        if not re.fullmatch(r"[+-]?[0-9]+", stripped):
            raise ValueError(f"{flag} must be an integer (ASCII digits), got {text!r}.")
        return int(stripped)

    return integer


def setting_help(name: str) -> str:
    """The help of the setting ``name``'s flag."""
    (setting,) = [s for s in fields(ReleaseSettings) if s.name == name]
    return setting.metadata["help"]
