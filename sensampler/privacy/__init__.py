r"""What a release states about privacy: small frozen records and their conversions.

This module is the one privacy data model of sensampler. Mechanisms produce a
:class:`PrivacyStatement`; accountants and filters consume statements and report
a :class:`PrivacyBound`; a sampled sensitivity's provenance is a
:class:`SamplingRun`. It imports nothing from the rest of the package but the
validation helpers, so every other module may import it.

Three kinds of privacy appear side by side and are never confused:

* **(epsilon, delta)-DP** (Dwork & Roth 2014, Def. 2.4), with ``delta = 0`` for
  pure DP;
* **Rényi DP** (Mironov 2017) and **zCDP** (Bun & Steinke 2016), carried as a
  Rényi curve :math:`\alpha \mapsto \epsilon(\alpha)` and a zCDP parameter
  :math:`\rho`;
* **random DP** (Hall, Rinaldo & Wasserman 2012; Rubinstein & Aldà 2017): a
  mechanism calibrated with a *sampled* sensitivity is private with probability
  at least :math:`1-\gamma`. :math:`\gamma` belongs to the sampling run: releases
  calibrated by one run fail together, so a union bound counts each run's
  :math:`\gamma` once, and an anonymous :math:`\gamma` (no run identity) once per
  release.

Where a sensitivity comes from decides what may be stated:

``"global"``
    A number the caller gives and vouches for as a bound over *all* pairs of
    neighbouring databases: plain DP, :math:`\gamma = 0`.
``"sampled"``
    The order statistic of a sampling run, or a value that is provably at least
    as large (a positive multiple of at least 1, plus a non-negative constant):
    random DP with the run's :math:`\gamma`.
``"typical"``, ``"derived"``
    A mean or quantile of sampled sensitivities, or arithmetic on sampled or
    typical values that may lower them: **no guarantee**. Mechanisms calibrated
    with them say so, and accountants and filters refuse them.

A sampled or typical value that is turned into a plain number (``float(x)``,
``np.asarray(x)``) loses its provenance; sensampler then warns with
:class:`PrivacyLeakWarning`, because a plain number is read as a global bound.

**One record, its views.** :class:`PrivacyStatement` is the record of what one
release states (with its :class:`SamplingRun`, :class:`Noise`,
:class:`RenyiCurve` and worst-case part inside). Every other form is a view of
it, built in one place and never stating more: its words
(:attr:`PrivacyStatement.core_text`, ``str``, the notebook card); a ledger line,
:class:`sensampler.accounting.LedgerEntry` (``LedgerEntry.of(statement,
count)``, back with ``entry.to_statement()``), which a budget file stores as
JSON; dp_accounting's ``DpEvent`` (:meth:`PrivacyStatement.to_dp_event`, back
with :func:`statement_from_dp_event`); the PLD accountant's steps
(:func:`sensampler.accounting.pld.statement_steps`); and the same statement
under the other relation (:func:`to_replace_one`). A :class:`PrivacyBound` is
not a view of one statement but what a composition of several holds.
"""

from ._format import format_dp, format_upper, relation_words, size_words
from ._records import (
    NEIGHBOURS,
    NOISE_KINDS,
    SOURCES,
    Noise,
    PrivacyBound,
    PrivacyLeakWarning,
    SamplingRun,
)
from ._renyi import DEFAULT_ORDERS, RenyiCurve, pure_dp_rdp, rdp_to_dp, zcdp_to_dp
from ._statement import PrivacyStatement, statement_from_dp_event, to_replace_one

__all__ = [
    "NEIGHBOURS",
    "SOURCES",
    "PrivacyLeakWarning",
    "RenyiCurve",
    "SamplingRun",
    "NOISE_KINDS",
    "Noise",
    "PrivacyStatement",
    "PrivacyBound",
    "DEFAULT_ORDERS",
    "rdp_to_dp",
    "zcdp_to_dp",
    "pure_dp_rdp",
    "statement_from_dp_event",
    "to_replace_one",
    "format_dp",
    "format_upper",
    "relation_words",
    "size_words",
]
