import pytest

from longbench_suite import registry
from longbench_suite.errors import UnknownNameError


def test_every_config_is_listed_and_resolves_qualified():
    names = registry.list_configs()
    assert "helmet/nq_32k" in names and len(names) == len(set(names))
    for qualified in names:
        bench, config = qualified.split("/")
        assert registry.resolve(qualified) == (bench, config)
        assert registry.resolve(config, bench) == (bench, config)
        owners = [b for b in registry.benchmark_names() if config in registry.benchmark(b).config_names]
        if len(owners) == 1:
            assert registry.resolve(config, registry.SUITE) == (bench, config)
        else:  # e.g. hotpotqa_8k is both HELMET's and LongBench's
            with pytest.raises(UnknownNameError, match="ambiguous"):
                registry.resolve(config, registry.SUITE)


def test_helmet_rag_configs_exist():
    helmet = registry.list_configs("helmet")
    for task in ("nq", "triviaqa", "popqa", "hotpotqa"):
        for length in ("8k", "16k", "32k", "64k", "128k"):
            assert f"helmet/{task}_{length}" in helmet


def test_unknown_names_suggest_close_matches():
    with pytest.raises(UnknownNameError, match="unknown config 'nq_33k'; did you mean nq_32k"):
        registry.resolve("nq_33k")
    with pytest.raises(UnknownNameError, match="unknown benchmark 'helmut'; did you mean helmet"):
        registry.resolve("helmut/nq_32k")
    with pytest.raises(UnknownNameError, match="unknown config of helmet 'nq_32'"):
        registry.resolve("helmet/nq_32")


def test_an_unknown_generated_config_suggests_generated_ones_at_its_length():
    # generated configs exist at any length, so no listing holds them: the message names them
    with pytest.raises(UnknownNameError) as unknown:
        registry.resolve("gen_foo_8k")
    message = str(unknown.value)
    assert message.startswith("unknown config 'gen_foo_8k'; did you mean gen_json_kv_8k")
    assert "TASK one of gen_json_kv, gen_niah_single_1" in message and "\n" not in message
    with pytest.raises(UnknownNameError, match=r"did you mean [^?]*gen_niah_multikey_2_48k"):
        registry.resolve("helmet/gen_niah_multikey_48k")
    with pytest.raises(UnknownNameError) as unknown:
        registry.resolve("nq_33k")
    assert "Generated configs" not in str(unknown.value)
    # no close match: the generated configs' note still follows a separator
    with pytest.raises(UnknownNameError, match=r"^unknown config of helmet 'gen_niah_x_y'; generated"):
        registry.resolve("helmet/gen_niah_x_y")
    # a generated task without its length is a task, as a listed one is
    for name in ("gen_json_kv", "helmet/gen_json_kv"):
        with pytest.raises(UnknownNameError, match=r"'gen_json_kv' is a task, not a config: add a length"):
            registry.resolve(name)


def test_ambiguous_bare_name_lists_qualified_candidates(monkeypatch):
    monkeypatch.setitem(registry.BENCHMARKS, "helmet_copy", registry.BENCHMARKS["helmet"])
    with pytest.raises(UnknownNameError, match="ambiguous; use one of helmet/nq_32k, helmet_copy/nq_32k"):
        registry.resolve("nq_32k")
    assert registry.resolve("helmet_copy/nq_32k") == ("helmet_copy", "nq_32k")
