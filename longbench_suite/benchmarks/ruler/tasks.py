"""RULER's tasks (``scripts/synthetic.yaml`` at :data:`RULER_COMMIT`), each one declaration: the RULER
script (family) it runs, that script's arguments, and the sources it reads (``docs/ruler.md``). The
13 tasks are 13 :func:`ruler_task` lines in :data:`TASKS`.

Every family is a module of :mod:`longbench_suite.generate` exposing ``ruler_rows(task_args, counter, *,
max_seq_length, tokens_to_generate, template, answer_prefix, num_samples, seed, pre_samples, <sources>,
excluded)`` (RULER's jsonl records, key for key) and ``screen_strings(record)``. ``eval`` is RULER's own
rows (500, seed 42, template ``base``); ``dev`` is fresh rows from another seed, screened against
``eval`` (§4). The prompt modes (§5) are one option, ``generate={"prompt": ...}``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import itertools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any, ClassVar

from longbench_suite.errors import OptionError, SuiteError
from longbench_suite.fit.generated import PROMPT_FIELD, FitsByConstruction, GeneratedPrompt
from longbench_suite.fit.rules import InputBudget
from longbench_suite.generate.limits import TokenCountLengths, check_length, check_rows, read_essay
from longbench_suite.instance import Instance, Plan
from longbench_suite.memo import Codec, Memo
from longbench_suite.partition.leakage import EvalReference, LeakageRule
from longbench_suite.render import PromptTemplate
from longbench_suite.row import query_id
from longbench_suite.task import BuildEnv, Task

from . import sources
from .lengths import LENGTHS

#: the RULER commit whose scripts the rows reproduce (the parity fixtures' commit, 2026-07-22)
RULER_COMMIT = "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a"
#: RULER's defaults (``scripts/config_tasks.sh``, ``prepare.py``): what ``eval`` is
EVAL_SAMPLES = 500
EVAL_SEED = 42
#: the seed ``dev`` draws from unless told: below 42, so no chunked RULER run (seed ``42 + chunk``) made it
DEV_SEED = 0
#: HELMET's choice (``docs/ruler.md`` §2): RULER needs a tokenizer to size a row, and names none
DEFAULT_TOKENIZER = "meta-llama/Llama-2-7b-hf"
#: the prompt modes (``docs/ruler.md`` §5)
PROMPTS = ("completion", "assistant", "user")
#: the generation budget of ``prompt="user"`` unless told: an eighth of the length (RULER's maintainers'
#: 16K of 128K, NVIDIA/RULER#99), never less than the task's own
USER_BUDGET_SHARE = 8
MARK = "\x00user\x00"

#: the generator module of each RULER script (``longbench_suite/generate/<module>.py``)
MODULES = {
    "niah": "niah_ruler",
    "variable_tracking": "variable_tracking",
    "common_words_extraction": "common_words",
    "freq_words_extraction": "freq_words",
    "qa": "qa",
}


@dataclass(frozen=True)
class Text:
    """A RULER script's entry of ``scripts/data/synthetic/constants.py``, as its generator module states
    it (``TEMPLATE``, ``ANSWER_PREFIX``, ``TOKENS_TO_GENERATE``)."""

    template: str
    answer_prefix: str
    tokens_to_generate: int

    @classmethod
    def of(cls, script: str) -> Text:
        module = generator(script)
        return cls(module.TEMPLATE, module.ANSWER_PREFIX, module.TOKENS_TO_GENERATE)


def generator(script: str) -> ModuleType:
    """The generator module of a RULER script (``longbench_suite/generate/<module>.py``)."""
    return importlib.import_module(f"longbench_suite.generate.{MODULES[script]}")


#: RULER's groups of its tasks (the paper's categories), in the order the tables report them
CATEGORIES = {
    "niah": "Retrieval",
    "variable_tracking": "Multi-hop Tracing",
    "common_words_extraction": "Aggregation",
    "freq_words_extraction": "Aggregation",
    "qa": "Question Answering",
}
#: the strings of each ``eval`` record a ``dev`` row avoids, kept on disk per eval config
#: (``<cache>/longbench_suite/sources/memo/ruler-screen/``)
SCREENS: Memo[frozenset[str]] = Memo("ruler-screen", entries=8, codec=Codec(dump=sorted, load=frozenset))


@dataclass(frozen=True)
class Options:
    """``generate={...}`` of a ``ruler`` config (``docs/ruler.md`` §4-5)."""

    #: ``dev``'s seed and rows (``eval`` is always RULER's 500 rows of seed 42)
    seed: int = DEV_SEED
    rows: int | None = EVAL_SAMPLES
    #: screen ``dev`` against ``eval``'s keys, values, variables and questions
    screen: bool = True
    #: RULER's own ``PaulGrahamEssays.json`` (or plain text) instead of the declared essay source
    essay: str | None = None
    prompt: str | None = None  # completion, assistant (under chat_template=) or user
    #: the generation budget of ``prompt="user"`` (default: an eighth of the length)
    tokens_to_generate: int | None = None

    @classmethod
    def of(cls, given: Mapping[str, Any] | None, where: str) -> Options:
        given = dict(given or {})
        unknown = sorted(set(given) - set(cls.__dataclass_fields__))
        if unknown:
            raise OptionError(
                f"{where}: unknown generate option(s) {unknown}; known: {sorted(cls.__dataclass_fields__)}"
            )
        options = cls(**given)
        if type(options.seed) is not int:
            raise OptionError(f"{where}: generate seed must be an integer, got {options.seed!r}")
        if options.seed == EVAL_SEED:
            raise OptionError(
                f"{where}: generate seed {EVAL_SEED} is eval's (RULER's own rows); dev draws from"
                " another seed"
            )
        check_rows(options.rows, where)
        if type(options.screen) is not bool:
            raise OptionError(f"{where}: generate screen must be true or false, got {options.screen!r}")
        if options.prompt is not None and options.prompt not in PROMPTS:
            raise OptionError(f"{where}: generate prompt must be one of {PROMPTS}, got {options.prompt!r}")
        budget = options.tokens_to_generate
        if budget is not None and (type(budget) is not int or budget <= 0):
            raise OptionError(
                f"{where}: generate tokens_to_generate must be a positive integer, got {budget!r}"
            )
        if budget is not None and options.prompt != "user":
            raise OptionError(
                f"{where}: generate tokens_to_generate is the budget of prompt='user' (RULER's own otherwise)"
            )
        return options


@dataclass(frozen=True)
class Mode:
    """How a row is prompted: the template RULER's script is given, the generation budget it sizes
    with, and the row's ``answer_prefix`` and chat flag (``docs/ruler.md`` §5)."""

    name: str
    template: str
    tokens_to_generate: int
    chat_template: str | None = None  # the identity of the chat template the prompt is rendered in

    @property
    def prefill(self) -> bool:
        """The answer prefix ends the prompt (RULER's way); ``user``: it is part of the user turn."""
        return self.name != "user"


@dataclass(frozen=True)
class RulerFit(FitsByConstruction):
    """RULER's budget, met by its own sizing: ``len(tokens(input)) + tokens_to_generate <= max_seq_length``
    with the tokens counted without special tokens; ``input_tokens`` counts them, so a row may have up
    to :data:`SPECIAL_TOLERANCE` more than the budget's tokens (a BOS, an EOS)."""

    def budget(self, task: Task, length: str, max_input_tokens: int | None) -> InputBudget:
        if max_input_tokens is not None:
            raise OptionError(
                f"{task.config_name(length)}: a ruler row is sized by its length, as RULER sizes it; ask "
                f"for another length (e.g. {task.name}_{max_input_tokens + task.max_new_tokens}) instead "
                "of max_input_tokens"
            )
        return InputBudget(
            task.window(length) - task.max_new_tokens,
            rule="max_length − tokens_to_generate, counted without special tokens (RULER)",
            tolerance=SPECIAL_TOLERANCE,
        )


#: special tokens a tokenizer may add to a count that RULER's excludes
SPECIAL_TOLERANCE = 2


@dataclass(frozen=True, eq=False, kw_only=True)
class RulerTask(TokenCountLengths, Task):
    """One task of RULER's ``synthetic.yaml``: its script, that script's arguments, its sources."""

    #: the RULER script (its ``constants.py`` key): ``niah``, ``variable_tracking``, ``qa``, ...
    script: str
    #: the task's arguments in ``synthetic.yaml``, as given there
    task_args: Mapping[str, Any]
    #: the generator's keyword argument -> the source (of ``sources.SOURCES``) read into it, by the
    #: source's reader ``sources.READERS[name]``
    source_args: Mapping[str, str] = field(default_factory=dict)
    lengths: tuple[str, ...] = tuple(LENGTHS)
    fit: RulerFit = field(default_factory=RulerFit)
    use_chat_template: bool = False
    default_tokenizer: str = DEFAULT_TOKENIZER

    missing_split_reasons: ClassVar[Mapping[str, str]] = {}
    leakage_columns: ClassVar[tuple[str, ...]] = ()
    #: every row of a split comes from one random stream, as RULER draws them: one shard, one process
    shardable: ClassVar[bool] = False
    #: eval is RULER's seed-42 rows, dev another seed's: ``load_dataset(..., split="eval")`` never pays
    #: for dev's screen, which draws eval at every listed length
    splits_apart: ClassVar[bool] = True

    # -- lengths ------------------------------------------------------------------------------------

    def check_generate(self, options: Mapping[str, Any] | None, length: str | None = None) -> None:
        given = Options.of(options, self.name)
        if given.essay is not None:
            read_essay(given.essay)  # its size and content, before any work
        check_length(f"{self.name}_{length or ''}", length)

    def unbounded(self, options: Mapping[str, Any] | None) -> bool:
        return Options.of(options, self.name).rows is None

    # -- sources ------------------------------------------------------------------------------------

    def generator(self) -> ModuleType:
        return generator(self.script)

    def sources(self, length: str) -> dict:
        return {arg: sources.SOURCES[name] for arg, name in self.source_args.items()}

    def sources_to_read(self, length: str, env: BuildEnv) -> dict:
        found = self.sources(length)
        if Options.of(env.generate, env.config_name).essay is not None:
            found.pop("essay", None)  # the user's essay file replaces the declared one
        return found

    def source_values(self, files, options: Options) -> dict[str, Any]:
        """The generator's source arguments, read (the essay: the user's file when given)."""
        values = {}
        for arg, name in self.source_args.items():
            if arg == "essay" and options.essay is not None:
                values[arg] = sources.read_ruler_essay(options.essay)
            elif name in LAZY_SOURCES:  # the generator calls it only if it needs the file's contents
                values[arg] = functools.partial(sources.READERS[name], files[arg])
            else:
                values[arg] = sources.READERS[name](files[arg])
        return values

    # -- prompt modes -------------------------------------------------------------------------------

    def completion(self) -> Mode:
        """RULER's own mode: its ``base`` model template (``{task_template}``), the answer prefix appended."""
        text = Text.of(self.script)
        return Mode("completion", text.template + text.answer_prefix, text.tokens_to_generate)

    def mode(self, length: str, env: BuildEnv, options: Options) -> Mode:
        """The prompt mode of ``options`` and ``chat_template=`` (``docs/ruler.md`` §5)."""
        text = Text.of(self.script)
        base = text.template + text.answer_prefix  # RULER's "base" model template: "{task_template}"
        prompt = prompt_mode(options, env.chat_template is not None)
        if prompt == "completion":
            if env.chat_template is not None:
                raise OptionError(
                    f"{env.config_name}: chat_template= puts the prompt in a chat; with prompt='completion' "
                    "there is none (leave out chat_template=, or ask for prompt='assistant' or 'user')"
                )
            return self.completion()
        if prompt == "assistant":
            chat = env.chat_template
            if chat is None:
                raise OptionError(
                    f"{env.config_name}: generate prompt='assistant' renders the prompt in a chat template: "
                    "give chat_template= (e.g. chat_template='tokenizer'; on the command line "
                    "--chat-template tokenizer)"
                )
            head, tail = chat.render(MARK).split(MARK)
            escaped = [part.replace("{", "{{").replace("}", "}}") for part in (head, tail)]
            # prepare.py: model_template.format(task_template=...) + answer_prefix
            return Mode(
                prompt,
                escaped[0] + text.template + escaped[1] + text.answer_prefix,
                text.tokens_to_generate,
                chat.identity,
            )
        if env.chat_template is not None:
            raise OptionError(
                f"{env.config_name}: generate prompt='user' leaves the chat template to the chat server at "
                "request time, so chat_template= (--chat-template) would change nothing; leave it out, or "
                "ask for prompt='assistant' to render the prompt in it"
            )
        budget = self.user_budget(length, options)
        if budget >= self.max_length(length):
            raise OptionError(
                f"{env.config_name}: generate tokens_to_generate {budget} leaves no room for the input "
                f"({self.max_length(length)} tokens)"
            )
        return Mode(prompt, base, budget)

    def user_budget(self, length: str, options: Options) -> int:
        """The generation budget of ``prompt="user"``: the one given, else an eighth of the length, never
        less than the task's own."""
        own = Text.of(self.script).tokens_to_generate
        return options.tokens_to_generate or max(own, self.max_length(length) // USER_BUDGET_SHARE)

    # -- rows ---------------------------------------------------------------------------------------

    def rows(
        self,
        length: str,
        env: BuildEnv,
        values: Mapping[str, Any],
        mode: Mode,
        *,
        seed: int,
        num_samples: int | None,
        excluded: frozenset[str] = frozenset(),
    ) -> Iterator[dict]:
        """RULER's records of this task (its script's ``ruler_rows``); an error names the config drawn
        (and the config whose ``dev`` screen drew it, when another)."""
        records = self.generator().ruler_rows(
            dict(self.task_args),
            env.tokenizer,
            max_seq_length=self.max_length(length),
            tokens_to_generate=mode.tokens_to_generate,
            template=mode.template,
            answer_prefix=Text.of(self.script).answer_prefix,
            num_samples=num_samples,
            seed=seed,
            **values,
            excluded=excluded,
        )
        drawn = self.config_name(length)
        if drawn != env.config_name:
            drawn = f"{env.config_name}: {drawn}'s eval rows (dev's screen)"
        try:
            yield from records
        except SuiteError as exc:
            raise type(exc)(f"{drawn}: {exc}") from None

    def plan(self, split: str, length: str, files, env: BuildEnv) -> Plan:
        # one random stream for all rows, as RULER draws them: the split is one shard
        options = Options.of(env.generate, env.config_name)
        return Plan(None, shared=(self.source_values(files, options), self.mode(length, env, options)))

    def instances(self, split, length, files, plan, items, env) -> Iterator[Instance]:
        options = Options.of(env.generate, env.config_name)
        values, mode = plan.shared
        if split == "eval":
            records = self.rows(length, env, values, mode, seed=EVAL_SEED, num_samples=EVAL_SAMPLES)
            seed = EVAL_SEED
        else:
            excluded = self.screen(length, env, files, values, options)
            records = self.rows(
                length, env, values, mode, seed=options.seed, num_samples=options.rows, excluded=excluded
            )
            seed = options.seed
        specials = env.tokenizer.count("x") - env.tokenizer.count("x", special=False)
        for number, record in zip(itertools.count(), records):
            yield self.instance(record, number, seed, mode, specials)

    def instance(self, record: dict, number: int, seed: int, mode: Mode, specials: int) -> Instance:
        prefix = record["answer_prefix"]
        text = record["input"] + prefix
        tokens = record["length"] - mode.tokens_to_generate + specials
        answers = list(record["outputs"])
        screened = sorted(self.generator().screen_strings(record))
        metadata = {
            "ruler_task": self.name,
            "script": self.script,
            "seed": seed,
            "row": number,
            "prompt": mode.name,
            "tokens_to_generate": mode.tokens_to_generate,
            "ruler_index": record.get("index"),
        }
        columns = {
            "length": record["length"],
            "token_position_answer": record.get("token_position_answer"),
            "screened": screened,
            "metadata": json.dumps(metadata, ensure_ascii=False),
        }
        if not mode.prefill:  # the prefix stays in the user turn; the model answers after it
            columns.update(use_chat_template=True, max_new_tokens=mode.tokens_to_generate)
        return Instance(
            query_id=query_id("ruler", self.name, *screened),
            fields={
                PROMPT_FIELD: GeneratedPrompt(
                    text, prefix if mode.prefill else "", tokens, mode.chat_template
                )
            },
            output=", ".join(answers),
            answers=answers,
            columns=columns,
        )

    # -- dev's screen against eval ------------------------------------------------------------------

    def leakage_references(
        self, reference: Task, length: str, generate: Mapping[str, Any] | None, chat: bool
    ) -> tuple[EvalReference, ...]:
        """The ``eval`` configs ``dev`` is screened against and ``check`` verifies it against: every
        listed length and its own in RULER's completion mode, and its own in the build's prompt mode
        when that is another; each with the build's essay file (``eval`` depends on nothing else of
        ``generate``; ``seed``, ``rows`` and ``screen`` are ``dev``'s)."""
        options = Options.of(generate, self.config_name(length))
        essay = (("essay", options.essay),) if options.essay is not None else ()
        found = [EvalReference(n, essay) for n in dict.fromkeys([*reference.lengths, length])]
        if prompt_mode(options, chat) != "completion":
            mode = (("prompt", options.prompt), ("tokens_to_generate", options.tokens_to_generate))
            found.append(EvalReference(length, essay + tuple(o for o in mode if o[1] is not None), chat))
        return tuple(found)

    def screen(self, length: str, env: BuildEnv, files, values, options: Options) -> frozenset[str]:
        """Every string of the ``eval`` records ``dev`` must avoid (the task's own ``screen_strings``), at
        :meth:`leakage_references`; each eval config's set is kept on disk, keyed by the source files
        read and the user's essay text."""
        if not options.screen:
            return frozenset()
        inputs = [*files.values(), *(v for v in values.values() if isinstance(v, str))]
        found: set[str] = set()
        for reference in self.leakage_references(self, length, env.generate, env.chat_template is not None):
            n = reference.length
            given = Options.of(dict(reference.generate), env.config_name)
            m = self.mode(n, replace(env, chat_template=env.chat_template if reference.chat else None), given)
            what = ("screen", self.name, n, m, env.tokenizer.identity, env.source_identity)
            found |= SCREENS.get(
                what, inputs, lambda n=n, m=m: self.eval_strings(n, env, values, m), cache_root=env.cache_root
            )
        return frozenset(found)

    def eval_strings(self, length: str, env: BuildEnv, values, mode: Mode) -> frozenset[str]:
        strings: set[str] = set()
        screen = self.generator().screen_strings
        for record in self.rows(length, env, values, mode, seed=EVAL_SEED, num_samples=EVAL_SAMPLES):
            strings |= screen(record)
        return frozenset(strings)

    # -- reports ------------------------------------------------------------------------------------

    def expected_sizes(self, length: str) -> Mapping[str, int]:
        return {"eval": EVAL_SAMPLES}

    def facts(self, length: str) -> dict:
        return {
            "RULER script": f"scripts/data/synthetic/{self.script}.py at {RULER_COMMIT[:7]}",
            "arguments": dict(self.task_args),
            "max_seq_length": self.max_length(length),
            "tokens_to_generate": self.max_new_tokens,
        }

    def card_columns(self) -> dict[str, str]:
        args = ", ".join(f"{k}={v}" for k, v in self.task_args.items())
        return {"RULER script": f"`{self.script}` ({args})"}

    def generated_facts(
        self,
        length: str,
        options: Mapping[str, Any] | None,
        *,
        chat_template: str | None = None,
        sources_read: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """What this config's build was: its prompt mode, what ``eval`` and ``dev`` are under its options,
        and which essay text and HotpotQA copy it read (the card's "How each config was built")."""
        given = Options.of(options, self.name)
        prompt = prompt_mode(given, chat_template is not None)
        eval_rows = f"RULER's {EVAL_SAMPLES} rows of seed {EVAL_SEED}"
        if prompt == "completion":
            mode = "completion (RULER's `base` template)"
            if "essay" in self.source_args and given.essay is None:
                what = "`prepare.py`'s procedure on the pinned essay copy, not RULER's scrape"
            else:
                what = "`prepare.py`'s rows, byte for byte"
            eval_rows = f"{what} ({eval_rows})"
        elif prompt == "assistant":
            mode = f"assistant (after the chat template's user turn, `{chat_template}`)"
            eval_rows += " with the chat template as RULER's model template"
        else:
            budget = self.user_budget(length, given)
            mode = f"user (answer prefix in the user turn, no prefill; {budget} tokens to generate)"
            eval_rows += f" in the user mode (sized for {budget} generated tokens): not `prepare.py`'s"
        rows = "rows without end" if given.rows is None else f"{given.rows} rows"
        screen = "screened against eval" if given.screen else "**not screened** (may share what eval asks)"
        facts = {"prompt": mode, "eval": eval_rows, "dev": f"seed {given.seed}, {rows}, {screen}"}
        read = sources_read or {}
        if self.script == "common_words_extraction" or self.task_args.get("type_needle_k") == "words":
            facts["wonderwords"] = importlib.metadata.version("wonderwords")
        if "essay" in self.source_args:
            facts["essay"] = sources.essay_account(given.essay, read)
        if "hotpotqa" in self.source_args.values():
            facts["HotpotQA copy"] = sources.served(sources.HOTPOTQA, read)
        return facts


def prompt_mode(options: Options, chat_template: bool) -> str:
    """The mode ``options`` ask for; unsaid: ``assistant`` under a chat template, else ``completion``."""
    return options.prompt or ("assistant" if chat_template else "completion")


#: what each family's ``screen_strings`` gives, so what the leakage rule compares (``docs/ruler.md`` §4)
LEAKAGE_REASONS = {
    "niah": "no dev row holds a needle key or value asked in the task's eval rows",
    "variable_tracking": "no dev row asks for a variable of the task's eval rows or the value they hold",
    "freq_words_extraction": "no dev row's answer is a coded word of the task's eval rows' answers",
    "common_words_extraction": (
        "no dev row's set of common words (its whole answer, the sorted words as one string) is an eval "
        "row's; single words are shared by design (the pool is a few thousand words)"
    ),
    "qa": "no dev row asks a question of the task's eval rows",
}
#: sources read only when the generator asks for them (CWE's fallback word list: 8.5 MB, needed only by a
#: list longer than the wonderwords pool)
LAZY_SOURCES = frozenset({"english_words"})


def row_strings(script: str, row: Mapping[str, Any]) -> set[str]:
    """What the screen compares of a built row, read from what the model is shown and scored on (its
    ``input``, which ends with the answer prefix in every prompt mode, and its ``answers``), not from
    the row's ``screened`` column: what ``check`` holds ``dev`` to."""
    text = row["input"]
    at = text.rfind(Text.of(script).answer_prefix.split("{")[0])  # the prefix's words before its blanks
    at = len(text) if at < 0 else at
    record = {"input": text[:at], "answer_prefix": text[at:], "outputs": list(row["answers"])}
    return set(generator(script).screen_strings(record))


def ruler_task(
    name: str,
    script: str,
    task_args: Mapping[str, Any],
    *,
    metric: str = "string_match_all",
    description: str,
    **source_args: str,
) -> RulerTask:
    """One task of ``synthetic.yaml``: its name, its script, its arguments there, and its sources."""
    text = Text.of(script)
    return RulerTask(
        name=name,
        description=description,
        script=script,
        task_args=task_args,
        source_args=source_args,
        template=PromptTemplate(text.template, text.answer_prefix),
        metric=metric,
        category=CATEGORIES[script],
        max_new_tokens=text.tokens_to_generate,
        leakage=LeakageRule(
            columns=(),
            reason=LEAKAGE_REASONS[script],
            scanned=("input", "answers"),
            reference=name,
            extract=functools.partial(row_strings, script),
        ),
    )


def _niah(k: int = 1, v: int = 1, q: int = 1, *, haystack: str, keys: str = "words", values: str = "numbers"):
    return dict(
        type_haystack=haystack,
        type_needle_k=keys,
        type_needle_v=values,
        num_needle_k=k,
        num_needle_v=v,
        num_needle_q=q,
    )


ESSAY = {"essay": "essays"}

TASKS = (
    ruler_task(
        "niah_single_1",
        "niah",
        _niah(haystack="noise"),
        description="One needle (word key, 7-digit value) in repeated noise sentences.",
    ),
    ruler_task(
        "niah_single_2",
        "niah",
        _niah(haystack="essay"),
        **ESSAY,
        description="One needle (word key, 7-digit value) in Paul Graham's essays.",
    ),
    ruler_task(
        "niah_single_3",
        "niah",
        _niah(haystack="essay", values="uuids"),
        **ESSAY,
        description="One needle (word key, UUID value) in Paul Graham's essays.",
    ),
    ruler_task(
        "niah_multikey_1",
        "niah",
        _niah(4, haystack="essay"),
        **ESSAY,
        description="Four needles with different keys in the essays; one is asked for.",
    ),
    ruler_task(
        "niah_multikey_2",
        "niah",
        _niah(haystack="needle"),
        description="One needle asked for among a haystack made of other needles.",
    ),
    ruler_task(
        "niah_multikey_3",
        "niah",
        _niah(haystack="needle", keys="uuids", values="uuids"),
        description="One UUID needle asked for among a haystack of other UUID needles.",
    ),
    ruler_task(
        "niah_multivalue",
        "niah",
        _niah(v=4, haystack="essay"),
        **ESSAY,
        description="Four values hidden for one key in the essays; all four are asked for.",
    ),
    ruler_task(
        "niah_multiquery",
        "niah",
        _niah(q=4, haystack="essay"),
        **ESSAY,
        description="Four needles in the essays; all four keys are asked for.",
    ),
    ruler_task(
        "vt",
        "variable_tracking",
        {"type_haystack": "noise", "num_chains": 1, "num_hops": 4},
        description="Four chained variable assignments in noise; all variables holding the value are asked.",
    ),
    ruler_task(
        "cwe",
        "common_words_extraction",
        {"freq_cw": 30, "freq_ucw": 3, "num_cw": 10},
        english_words="english_words",
        description="A numbered list of words; the ten that appear most often (30 times each) are asked for.",
    ),
    ruler_task(
        "fwe",
        "freq_words_extraction",
        {"alpha": 2.0},
        description="Coded words with zeta-distributed counts; the three most frequent are asked for.",
    ),
    ruler_task(
        "qa_1",
        "qa",
        {"dataset": "squad"},
        metric="string_match_part",
        qa="squad",
        description="A SQuAD 2.0 question over its paragraph hidden among distractor paragraphs.",
    ),
    ruler_task(
        "qa_2",
        "qa",
        {"dataset": "hotpotqa"},
        metric="string_match_part",
        qa="hotpotqa",
        description="A HotpotQA question over its paragraphs hidden among distractor paragraphs.",
    ),
)
