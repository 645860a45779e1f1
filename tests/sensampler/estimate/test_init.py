"""sensampler.estimate: one package, a module per record, the former names kept."""

import pickle

import sensampler.estimate
from sensampler.estimate import Coverage, SensitivityValue
from tests.sensampler.estimate.records import RUN


def test_the_package_exports_every_record():
    assert sensampler.estimate.__all__ == [
        "Coverage",
        "SamplingProblem",
        "SensitivityValue",
        "SensitivityEstimate",
        "SensitivityEstimates",
    ]
    for name in sensampler.estimate.__all__:
        assert getattr(sensampler.estimate, name).__name__ == name
    assert sensampler.estimate.VALUE_SOURCES == ("sampled", "typical", "derived")


def test_a_pickle_written_by_the_single_module_loads():
    # Records pickled before the split name their class sensampler.estimate.X;
    # protocol 2 writes that path as text, which is rewritten here to the former one.
    value = SensitivityValue(2.0, "sampled", RUN, "l1", "G_(k)", Coverage.whole((), ()))
    payload = pickle.dumps(value, protocol=2)
    for module in (b"_value", b"_coverage"):
        former = b"sensampler.estimate\n"
        payload = payload.replace(b"sensampler.estimate." + module + b"\n", former)
    assert b"sensampler.estimate\nSensitivityValue\n" in payload
    assert b"sensampler.estimate\nCoverage\n" in payload
    back = pickle.loads(payload)
    assert back == value and back.coverage == value.coverage and back.run == RUN
