r"""Sampled sensitivities that keep the sampling run they came from.

A sampling run (:func:`sensampler.sample_sensitivity`) releases the order
statistic :math:`G_{(k)}` of m sampled sensitivities; with probability at least
:math:`1-\gamma` over the run and a fresh pair of neighbouring databases from the
population, the pair's sensitivity does not exceed it (Rubinstein & Aldà 2017,
Thm. 3). That statement belongs to the run, so the value carries it:
:class:`SensitivityValue` holds the number together with its ``source`` and its
:class:`~sensampler.privacy.SamplingRun`.

Arithmetic keeps the guarantee only where it provably survives. For
:math:`c \ge 1` and :math:`a \ge 0`, :math:`c\,G_{(k)} \ge G_{(k)}` and
:math:`G_{(k)} + a \ge G_{(k)}`, so a pair whose sensitivity is at most
:math:`G_{(k)}` is also below the new value, and the run's :math:`\gamma` still
holds: ``x * c``, ``c * x`` (real ``c >= 1``) and ``x + a``, ``a + x`` (real
``a >= 0``) of a sampled value stay ``"sampled"``. Every other operation
(subtraction, division, a factor below 1, negation, two values together,
anything on a typical value) gives ``"derived"``: no guarantee.

Turning a value into a plain number (``float(x)``, ``int(x)``,
``np.asarray(x)``) returns the number and warns
:class:`~sensampler.privacy.PrivacyLeakWarning`, since mechanisms read a plain
number as a global bound; ``x.value`` reads it without a warning.

**Coverage.** A value records what it covers (:class:`Coverage`): the query's
output shape, which output coordinates it bounds (flat indices, in order) and
the shape of a release it covers; ``norm`` says in which norm. A scalar in
the l1, l2 or linf norm covers the whole output; a per-coordinate value
(``norm="coordinate"``) covers each coordinate at its place. Indexing keeps
``"sampled"`` only for a selection that keeps every selected coordinate at its
own place, once, in increasing order (``v[0]``, ``v[1:]``, ``v[[0, 2]]``,
boolean masks) and records the coordinates selected; a permutation, a
repetition, a reversed slice or a new axis gives ``"derived"``. A mechanism
refuses to release a value whose shape is not the coverage's: ``v[0]`` covers
a scalar, not the vector it came from; an l1 estimate of a 2-vector query
covers 2-vectors only. (Which coordinates are released is the caller's: a
mechanism sees shapes only.)

**Builtins and numpy.** Every path that can turn a value into a plain number
warns or keeps the provenance:

.. list-table::
   :header-rows: 1
   :widths: 45 55

   * - Path
     - Result
   * - ``x * c``, ``x + a`` (real ``c >= 1``, ``a >= 0``), ``+x``
     - ``"sampled"`` kept, coverage kept
   * - ``abs(x)``, ``math.ceil(x)``
     - ``"sampled"`` kept: :math:`|v| \ge v`, :math:`\lceil v\rceil
       \ge v`
   * - ``x - a``, ``x / c``, ``-x``, ``x * c`` (``c < 1``), ``x + y``
     - ``"derived"`` (may lower the bound)
   * - ``round(x)``, ``math.floor(x)``, ``math.trunc(x)``
     - a ``"derived"`` value
   * - ``x[i]`` and any indexing
     - ``"sampled"`` for a selection in place, else ``"derived"`` (see
       Coverage)
   * - ``sum([x, ...])``
     - ``0 + x`` keeps ``x``; two values added give ``"derived"``
   * - ``x < a``, ``x <= a``, ``x > a``, ``x >= a``, ``a`` a plain
       number
     - a bool, with ``PrivacyLeakWarning``: ``min``, ``max`` and
       ``sorted`` order with these and may hand back the plain number
   * - ``min(x, a)``, ``max(x, a)``, ``sorted([x, a])``
     - warn (the comparison above); return ``x`` unchanged or the
       plain ``a``
   * - ``min``, ``max``, ``sorted`` of values only
     - no warning: each result is one of the values, with its own
       provenance
   * - ``x == a``, ``x != a``, ``bool(x)``
     - a plain comparison, no warning (no number is handed back)
   * - ``float(x)``, ``int(x)``, ``np.asarray(x)``, ``np.array(x)``,
       ``math.sqrt(x)`` and the other ``math`` functions
     - the plain number, with ``PrivacyLeakWarning``
   * - ``format(x, spec)``, ``f"{x}"``, ``f"{x:.17g}"``, ``"{}".format(x)``
     - the number's text, with ``PrivacyLeakWarning``: ``float`` of it
       is a plain number (``repr(x)``, ``str(x)`` keep ``gamma`` and
       do not read back as a number)
   * - numpy ufuncs: ``np.sqrt(x)``, ``np.maximum(x, a)``
     - ``TypeError`` (``__array_ufunc__ = None``): use the arithmetic
       above, or ``x.value``
   * - ``copy.copy``, ``copy.deepcopy``, ``pickle``
     - an equal value: source, run, norm, label and coverage kept, the
       array read-only again
   * - ``x.value``, ``est.to_dict()``, ``est.to_records()``,
       ``est.to_pandas()``
     - plain numbers on purpose, no warning; the rows carry ``gamma``,
       ``run_id`` and ``ordinal`` (``to_dict`` also the output shape);
       a number read back from them is a plain number, which a
       mechanism reads as a global bound the caller vouches for

References
----------
.. [1] B. I. P. Rubinstein and F. Aldà, "Pain-Free Random Differential Privacy
   with Sensitivity Sampling", Proc. 34th ICML, PMLR 70, 2017.
"""

from __future__ import annotations

from ._coverage import Coverage
from ._estimate import SensitivityEstimate
from ._estimates import SensitivityEstimates
from ._problem import SamplingProblem
from ._value import VALUE_SOURCES as VALUE_SOURCES  # kept from the single module
from ._value import SensitivityValue
from ._value import ValueSource as ValueSource  # kept from the single module

__all__ = [
    "Coverage",
    "SamplingProblem",
    "SensitivityValue",
    "SensitivityEstimate",
    "SensitivityEstimates",
]
