"""``import sensampler`` is light, and leaves the heavy optional modules unloaded.

The package loads its names and subpackages on first use (PEP 562), so the bare
import costs a handful of modules; the budget is a count of modules, not a time,
so it holds on a busy machine too. Heavy modules are imported where used:
scipy by the plans and the accountants, scikit-learn by its adapters and
estimator queries, matplotlib by the figures, tqdm by progress bars, pandas by
``to_pandas``, dask by the user.
"""

import json
import os
import subprocess
import sys

import pytest

import sensampler

HEAVY = [
    "scipy.stats",
    "sklearn",
    "matplotlib",
    "dask",
    "distributed",
    "tqdm",
    "pandas",
]

#: Loaded by the core subpackages, never by the bare ``import sensampler``.
NOT_AT_IMPORT = [
    "numpy",
    "scipy",
    "joblib",
    "sensampler.accounting",
    "sensampler.mechanisms",
]

#: Modules ``import sensampler`` may add to a bare interpreter's (7 today).
BUDGET = 20


def _loaded(statement):
    """Module names in ``sys.modules`` after ``statement``, and before it."""
    code = (
        "import json, sys\nbefore = sorted(sys.modules)\n"
        f"{statement}\nprint(json.dumps([before, sorted(sys.modules)]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    before, after = json.loads(out.stdout)
    return set(before), set(after)


@pytest.mark.slow
@pytest.mark.parametrize(
    "statement",
    [
        "import sensampler",
        "import sensampler.distributions",
        "import sensampler.app.cli",
        "import sensampler.app",
    ],
)
def test_import_leaves_heavy_modules_out(statement):
    loaded = _loaded(statement)[1]
    assert [name for name in HEAVY if name in loaded] == []


def test_bare_import_stays_within_its_module_budget():
    before, after = _loaded("import sensampler")
    assert [name for name in NOT_AT_IMPORT if name in after] == []
    assert len(after - before) <= BUDGET, sorted(after - before)


@pytest.mark.slow
def test_public_names_load_on_first_use():
    before, after = _loaded(
        "import sensampler\nsensampler.sample_sensitivity\nsensampler.accounting"
    )
    assert {"sensampler.sampler", "sensampler.accounting"} <= after - before
    code = "from sensampler import sample_sensitivity, SamplingPlan, accounting"
    assert "sensampler.plan" in _loaded(code)[1]


def test_dir_and_all_name_every_public_name():
    for name in sensampler.__all__:
        assert getattr(sensampler, name) is not None
    assert set(sensampler.__all__) <= set(dir(sensampler))
    assert set(sensampler._NAMES) <= set(sensampler.__all__)
    assert {"privacy", "plan", "parallel", "distributions"} <= set(dir(sensampler))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        sensampler.nope  # noqa: B018


def _public_modules(package=""):
    """Every public module directly inside a package (a file or a folder)."""
    root = os.path.join(os.path.dirname(sensampler.__file__), *package.split(".")[1:])
    names = set()
    for entry in os.listdir(root):
        name = entry[:-3] if entry.endswith(".py") else entry
        is_package = os.path.isfile(os.path.join(root, entry, "__init__.py"))
        if (entry.endswith(".py") or is_package) and not name.startswith("_"):
            names.add(name)
    return names


@pytest.mark.slow
def test_every_public_module_is_an_attribute_after_import():
    # Before: sensampler.audit, .models, .release, .budget_file and .data_files
    # raised AttributeError (the lazy loader did not know them).
    app = _public_modules("sensampler.app")
    assert {"app", "table"} <= _public_modules() and {"cli", "release"} <= app
    code = "import sensampler\n" + "\n".join(
        [
            f"assert getattr(sensampler, {name!r}).__name__ == 'sensampler.{name}'"
            for name in sorted(_public_modules())
        ]
        + [
            f"assert getattr(sensampler.app, {name!r}).__name__ == "
            f"'sensampler.app.{name}'"
            for name in sorted(app)
        ]
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert _public_modules() <= set(dir(sensampler))
    assert app <= set(dir(sensampler.app))


#: Former names of the application layer's modules (``sensampler.NAME``), gone
#: before the first release (CHANGELOG.md): no import hook, no alias.
FORMER_NAMES = (
    "budget_file",
    "cli",
    "data_files",
    "demo",
    "experiments",
    "planning",
    "plotting",
    "release",
    "report",
)


def test_the_former_names_of_the_application_layer_are_gone():
    # Before: a meta path finder put first on the user's sys.meta_path by
    # `import sensampler` kept `sensampler.release` etc. as aliases of a
    # package never released; the names now import only as sensampler.app.NAME.
    code = "import importlib, sys, sensampler\n" + "\n".join(
        f"assert not hasattr(sensampler, {name!r})\n"
        f"try:\n    importlib.import_module('sensampler.{name}')\n"
        f"except ModuleNotFoundError:\n    pass\nelse:\n    raise AssertionError({name!r})"
        for name in FORMER_NAMES
    )
    code += (
        "\nassert not [f for f in sys.meta_path if 'sensampler' in type(f).__module__]"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert _public_modules("sensampler.app") >= set(FORMER_NAMES)


def test_import_sensampler_loads_no_application_module():
    after = _loaded("import sensampler")[1]
    assert not [name for name in after if name.startswith("sensampler.app")]


@pytest.mark.slow
def test_first_run_and_release_leave_scipy_out():
    # Before: the plan's binomial tail and the mixture's moments imported
    # scipy.special and scipy.optimize (~0.3 s, more than the rest of the first
    # use); the exact plan at k = m needs neither.
    statement = (
        "from sensampler import queries, sample_sensitivity\n"
        "from sensampler.distributions import GaussianMixture\n"
        "from sensampler.mechanisms import LaplaceMechanism\n"
        "heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])\n"
        "est = sample_sensitivity(queries.mean, heights, n=100, gamma=0.05)\n"
        "LaplaceMechanism(est, epsilon=1.0).release(170.0)"
    )
    loaded = _loaded(statement)[1]
    assert sorted(name for name in loaded if name.split(".")[0] == "scipy") == []


#: What a release of a mean never needs: the accountants' scipy.special and
#: scipy.optimize (exact composition, Rényi and zCDP conversions), the PLD
#: accountant and its dp_accounting, and joblib (a run on one worker).
NOT_FOR_A_RELEASE = [
    "sensampler.accounting._kov",
    "sensampler.accounting.composition",
    "sensampler.accounting.pld",
    "sensampler.accounting.zcdp",
    "sensampler.app.experiments.documents",
    "dp_accounting",
    "scipy.special",
    "scipy.optimize",
    "joblib",
]


@pytest.mark.slow
def test_a_release_of_a_mean_leaves_the_accountants_and_scipy_out():
    # Before: sensampler.accounting imported every accountant (scipy.special,
    # scipy.optimize), sensampler.app.experiments the documents' studies
    # (scipy.optimize) and sensampler.parallel joblib: a first release cost
    # about 0.3 s more than the sample and the Laplace noise it needs.
    statement = (
        "import numpy as np\n"
        "from sensampler.app.release import release_statistic\n"
        "data = np.random.default_rng(0).normal(170, 10, size=500)\n"
        "release_statistic(data, 'mean', 'normal:loc=170,scale=10', epsilon=1.0,"
        " random_state=0)"
    )
    loaded = _loaded(statement)[1]
    assert [name for name in NOT_FOR_A_RELEASE if name in loaded] == []


@pytest.mark.slow
def test_the_release_command_leaves_the_accountants_and_scipy_out(tmp_path):
    # Before: the command line imported every command's modules at start-up
    # (the demo's studies, the audits, the planning: scipy, the accountants),
    # on top of what the release imported itself (see the test above).
    data = tmp_path / "data.csv"
    data.write_text("height\n" + "".join(f"{160 + i % 30}.5\n" for i in range(500)))
    argv = ["release", "--data", str(data), "--column", "height", "--query", "mean"]
    argv += ["--population", "normal:loc=170,scale=10", "--epsilon", "1"]
    statement = (
        "import contextlib, io\n"
        "from sensampler.app._console import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main({argv!r}) == 0"
    )
    loaded = _loaded(statement)[1]
    assert [name for name in NOT_FOR_A_RELEASE if name in loaded] == []


@pytest.mark.slow
def test_accounting_loads_its_accountants_on_first_use():
    # The filter and the interface load with the package; the accountants, the
    # composition functions and their modules when first named, as if eager.
    before, after = _loaded("import sensampler.accounting")
    assert "sensampler.accounting.filters" in after
    assert [name for name in NOT_FOR_A_RELEASE if name in after] == []
    code = (
        "import sensampler.accounting as a\n"
        "assert all(getattr(a, name) is not None for name in a.__all__)\n"
        "assert a.pld.PLDAccountant is a.PLDAccountant\n"
        "assert set(a.__all__) | {'pld', 'zcdp'} <= set(dir(a))\n"
        "from sensampler.accounting import *\n"
        "assert optimal_composition is a.composition.optimal_composition"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
