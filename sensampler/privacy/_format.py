"""The words of privacy records: numbers rounded up, the data's size, gamma."""

from __future__ import annotations

from .._lib import printing
from .._math.rounding import upper

#: What a statement adds when its run accepted an order-dependent query.
ORDER_DEPENDENT = (
    "; the query depends on the order of the records (accepted with "
    "order_dependent=True): random DP averages over the position of the "
    "differing record, so a release may publish a record exactly"
)


def format_upper(value: float, digits: int) -> str:
    """``value`` printed with ``digits`` significant digits, rounded up.

    The smallest decimal of ``digits`` significant digits that reads back
    (``float(printed)``) as at least ``value``, decided exactly by
    :mod:`decimal` on the float's exact value, printed like
    ``format(x, f".{digits}g")``: the decimal rounded down when it reads back
    as ``value`` itself (``0.1`` prints ``0.1``), else rounded up. Zero,
    including -0.0, prints ``0``; non-finite values print as ``format`` does.
    A privacy parameter printed so is never below the one stated: 0.3703701
    prints ``0.370371`` at 6 digits, where rounding to nearest gave 0.37037.

    Parameters
    ----------
    value : float
        The number to print.
    digits : int
        Significant digits, between 1 and 15 (so that the float nearest the
        decimal prints as that decimal).

    Returns
    -------
    str
        The printed number.
    """
    return upper(value, digits)


def relation_words(neighbours: str, privacy_unit: str = "record") -> str:
    """The neighbouring relation in words, with what neighbours differ in.

    Parameters
    ----------
    neighbours : {"replace-one", "add-remove"}
    privacy_unit : {"record", "person"}, default "record"

    Returns
    -------
    str

    Examples
    --------
    >>> relation_words("replace-one", "person")
    "replace-one neighbours (one person's rows)"
    """
    text = f"{neighbours} neighbours"
    return f"{text} (one person's rows)" if privacy_unit == "person" else text


def size_words(neighbours: str, n: int, privacy_unit: str = "record") -> str:
    """The data's size in a guarantee, in words.

    Under add/remove neighbours a release calibrated for the data's ``n`` (a
    sensitivity sampled on databases of ``n - 1`` and ``n`` records, a choice
    that reads ``n``) publishes ``n``: its statement holds for databases of that
    size and their add/remove neighbours, given ``n``, and does not hide it.
    Under replace-one neighbours ``n`` is the same in every neighbour.

    Parameters
    ----------
    neighbours : {"replace-one", "add-remove"}
    n : int
        The number of private records (of persons, for the unit ``"person"``).
    privacy_unit : {"record", "person"}, default "record"

    Returns
    -------
    str
        ``n=... records`` (or persons) and, at add/remove, that it is published.

    Examples
    --------
    >>> size_words("add-remove", 100)
    'n=100 records, published: the statement holds given this size and does not hide it'
    """
    counted = f"n={n} {'persons' if privacy_unit == 'person' else 'records'}"
    if neighbours == "add-remove":
        return (
            f"{counted}, published: the statement holds given this size and "
            "does not hide it"
        )
    return counted


def format_dp(epsilon: float, delta: float) -> str:
    """``(epsilon=…, delta=…)-DP``, or ``epsilon=…-DP`` for delta 0.

    Both rounded up (:mod:`sensampler._lib.printing`: 6 and 3 significant
    digits), as every statement and record prints them.

    Parameters
    ----------
    epsilon, delta : float
        The parameters.

    Returns
    -------
    str
        The guarantee in words.
    """
    if delta:
        return f"(epsilon={printing.epsilon(epsilon)}, delta={printing.delta(delta)})-DP"
    return f"epsilon={printing.epsilon(epsilon)}-DP"


def worst_case_text(worst_case) -> str:
    """The worst-case part in words, or nothing."""
    if worst_case is None:
        return ""
    return f"; worst case: {worst_case.core_text} for every pair of neighbours"


def except_gamma(gamma: float) -> str:
    """How every record states gamma, so that it cannot be read as delta."""
    return (
        f", except with probability gamma={printing.gamma(gamma)} over the data "
        "drawn from "
        "the population model"
    )
