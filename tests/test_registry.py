import dataclasses

import pytest

from longbench_suite import registry
from longbench_suite.errors import UnknownNameError
from tests.specs import NAMES, all_specs, differences, spec


def test_every_benchmark_has_a_spec_and_matches_it():
    # the one place the tests' statement of each benchmark's tasks, lengths and counts meets the registry
    assert registry.benchmark_names() == list(NAMES)
    for name, expected in all_specs().items():
        assert differences(expected) == [], name
        assert registry.list_configs(name) == [f"{name}/{c}" for c in expected.configs]
    assert len(registry.list_configs()) == sum(len(s.configs) for s in all_specs().values())


def test_a_spec_that_differs_from_the_registry_is_reported_line_by_line():
    longbench = spec("longbench")
    tasks = dict(longbench.tasks)
    tasks.pop("qasper_e")
    tasks["not_a_task"] = ("4k",)
    declared = {**longbench.declared, "trec": {**longbench.declared["trec"], "max_new_tokens": 65}}
    eval_rows = {**longbench.eval_rows, "lcc": 499}
    changed = dataclasses.replace(longbench, tasks=tasks, declared=declared, eval_rows=eval_rows)
    found = differences(changed)
    assert "longbench: task qasper_e is registered but not in its spec" in found
    assert "longbench: task not_a_task is in its spec but not registered" in found
    assert "longbench/trec: max_new_tokens is 64, the spec says 65" in found
    assert "longbench/lcc_4k: 500 eval rows declared, the spec says 499" in found
    listed, dropped = len(registry.benchmark("longbench").config_names), len(longbench.tasks["qasper_e"])
    assert f"longbench: {listed} configs listed, the spec derives {listed - dropped + 1}" in found
    lengths = dataclasses.replace(longbench, tasks={**longbench.tasks, "qasper": ("4k", "8k")})
    assert differences(lengths)[0].startswith("longbench/qasper: lengths ('4k', '8k', '16k'")


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
