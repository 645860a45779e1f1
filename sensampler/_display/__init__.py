"""HTML for notebooks and reports: small cards and hand-built SVG figures.

The records' ``_repr_html_`` methods (estimates, statements, accountants,
filters, budget files, audits, result tables, releases and plans) are one line
each and call a function of this package, as pandas and scikit-learn show
their objects in Jupyter. Every text that comes from a record is escaped with
:func:`html.escape`; the figures are inline SVG (no matplotlib, no network), so
a card or a report page is self-contained.

- :mod:`.page`: the card, its rows and paragraphs, a result table, a whole page;
- :mod:`.figures`: the SVG figures (histogram, interval, noise density);
- :mod:`.estimates`: estimates, sensitivity values, sampling plans, bounds,
  population models;
- :mod:`.statements`: privacy statements (in plain words) and bounds;
- :mod:`.ledgers`: accountants, filters, budget files, ledger entries;
- :mod:`.audits`: coverage and mechanism audits, population comparisons and
  choices;
- :mod:`.releases`: mechanisms, releases and release plans;
- :mod:`.text`: plain-text tables.

These modules import nothing from the rest of the package but the rounding
helpers and the one number-printing policy (:mod:`sensampler._lib.printing`):
they read records by their attributes, and print every number as the text
forms do (privacy parameters and sensitivities rounded up, what is left and a
confidence rounded down, values to the precision of their error), so that the
HTML never states more privacy than the text, nor one number two ways.
"""
