"""HELMET's GPT-4o judge (``scripts/eval_gpt4_longqa.py``, ``scripts/eval_gpt4_summ.py``).

The prompts are HELMET's, verbatim (``helmet_judge_prompts.json``, with the upstream commit and each
prompt's sha256). The judge is any callable ``(prompt, max_tokens) -> str | None``;
:class:`OpenAIJudge` is HELMET's own set-up (``gpt-4o-2024-05-13``, one user message,
temperature 0.1, top_p 0.9, seed 42). A row whose judge reply is missing or does not parse is left
out of the mean, as upstream does.

- NarrativeQA ``gpt-4-score`` = fluency (0/1) × correctness (0-3) of the output parsed after
  ``Answer:`` (newlines first replaced by spaces); the task score is the mean × 100/3.
- Summaries ``gpt-4-f1`` = fluency × harmonic mean of key-point recall and sentence precision
  (InfiniteBench Sum uses the "book" prompts, precision against the reference summary; Multi-LexSum
  judges precision against ``summary/long``); the task score is the mean × 100.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from longbench_suite.endpoint import openai_client
from longbench_suite.errors import DataFormatError
from longbench_suite.metrics.base import Judges, Row, RowScores, column

from .parsing import meta_field, parse_output

JUDGE_MODEL = "gpt-4o-2024-05-13"
NEEDS = f"an LLM judge (HELMET uses {JUDGE_MODEL}; CLI: --judge-model)"
#: ``generation_max_length`` of HELMET's judge calls
LONGQA_MAX_TOKENS = 2048
SUMMARY_MAX_TOKENS = 4096

@cache
def prompts() -> dict[str, str]:
    """HELMET's judge prompt templates by upstream variable name."""
    raw = resources.files(__package__).joinpath("judge_prompts.json").read_text(encoding="utf-8")
    return {name: entry["template"] for name, entry in json.loads(raw)["prompts"].items()}


# -- NarrativeQA ----------------------------------------------------------------------------------


def parse_judge_output(output: str, prefix: str = "Answer:") -> str:
    """The judge script's ``parse_output``: newlines become spaces before the usual parse."""
    return parse_output(output.replace("\n", " "), prefix)


def longqa_prompt(question: str, answers: Sequence[str], output: str) -> str:
    # The correct answers are shown as Python prints a list of strings, as upstream formats them.
    return prompts()["judge_prompt"].format(
        question=question, correct_answers=str(list(answers)), parsed_output=parse_judge_output(output)
    )


def parse_longqa_reply(reply: str) -> dict | None:
    """The last ``{...}`` of the reply as JSON, if it parses."""
    matches = re.findall(r"\{.*?\}", reply, re.DOTALL)
    if not matches:
        return None
    try:
        return json.loads(matches[-1])
    except ValueError:
        return None


def longqa_score(reply: str | None) -> float | None:
    """fluency × correctness, or ``None`` if the reply lacks either (upstream would crash on a JSON
    object without them; here the row is left out like an unparsable one)."""
    scores = parse_longqa_reply(reply) if reply is not None else None
    if not isinstance(scores, dict) or "fluency" not in scores or "correctness" not in scores:
        return None
    try:
        return float(scores["fluency"] * scores["correctness"])
    except TypeError:
        return None


def longqa_judged(predictions: Sequence[str], rows: Sequence[Row], judges: Judges) -> list[RowScores] | None:
    if judges.llm is None:
        return None
    out: list[RowScores] = []
    for prediction, row in zip(predictions, rows, strict=True):
        prompt = longqa_prompt(column(row, "question"), column(row, "answers"), prediction)
        out.append({"gpt-4-score": longqa_score(judges.llm(prompt, LONGQA_MAX_TOKENS))})
    return out


# -- summaries ------------------------------------------------------------------------------------


def summary_prompts(summary: str, keypoints: Sequence[str], expert_summary: str, book: bool) -> list[str]:
    """The fluency, recall and precision prompts for one summary (``summary`` already stripped)."""
    suffix = "_book" if book else ""
    numbered = "\n".join(f"{i + 1}. {kp}" for i, kp in enumerate(keypoints))
    p = prompts()
    return [
        p[f"fluency_prompt{suffix}"].format(text=summary),
        p[f"recall_prompt{suffix}"].format(keypoints=numbered, summary=summary),
        p[f"precision_prompt{suffix}"].format(expert_summary=expert_summary, summary=summary),
    ]


def parse_summary_reply(reply: str) -> dict | None:
    """The last ``{...}`` as JSON; failing that, the last fenced ```json block."""
    matches = re.findall(r"\{.*?\}", reply, re.DOTALL)
    if not matches:
        return None
    for candidates in (matches, re.findall(r"(?:```json)(.+)(?:```)", reply, re.DOTALL)):
        if candidates:
            try:
                return json.loads(candidates[-1])
            except ValueError:
                continue
    return None


def summary_scores(replies: Sequence[str | None], n_keypoints: int) -> RowScores | None:
    """fluency, recall, precision and f1 from the three replies; ``None`` if any is unusable."""
    if any(r is None for r in replies):
        return None
    parsed = [parse_summary_reply(r) for r in replies]
    if any(not isinstance(p, dict) for p in parsed):
        return None
    fluency, recall, precision = parsed
    try:
        rec = recall["recall"] / n_keypoints if n_keypoints > 0 else 0.0
        prec = (
            precision["precision"] / precision["sentence_count"] if precision["sentence_count"] > 0 else 0.0
        )
        f1 = fluency["fluency"] * 2 * (rec * prec) / (rec + prec) if rec + prec > 0 else 0.0
        return {
            "gpt-4-f1": f1,
            "gpt-4-recall": rec,
            "gpt-4-precision": prec,
            "gpt-4-fluency": fluency["fluency"],
        }
    except (KeyError, TypeError, ZeroDivisionError):
        return None


def _summary_inputs(row: Row) -> tuple[list[str], str, bool]:
    keypoints = meta_field(row, "keypoints")
    if not isinstance(keypoints, list):
        raise DataFormatError(f"'metadata.keypoints' must be a list, got {type(keypoints).__name__}")
    if column(row, "task") == "infbench_sum":
        return keypoints, column(row, "answers")[0], True
    return keypoints, meta_field(row, "summary_long"), False


def summary_judged(predictions: Sequence[str], rows: Sequence[Row], judges: Judges) -> list[RowScores] | None:
    if judges.llm is None:
        return None
    empty = dict.fromkeys(("gpt-4-f1", "gpt-4-recall", "gpt-4-precision", "gpt-4-fluency"))
    out: list[RowScores] = []
    for prediction, row in zip(predictions, rows, strict=True):
        keypoints, expert, book = _summary_inputs(row)
        replies = [
            judges.llm(p, SUMMARY_MAX_TOKENS)
            for p in summary_prompts(prediction.strip(), keypoints, expert, book)
        ]
        out.append(summary_scores(replies, len(keypoints)) or dict(empty))
    return out


# -- a client -------------------------------------------------------------------------------------


@dataclass
class OpenAIJudge:
    """HELMET's judge calls through the ``openai`` client (reads ``OPENAI_API_KEY``): one user
    message, ``temperature=0.1``, ``top_p=0.9``, ``seed=42``; returns the reply text or ``None``."""

    model: str = JUDGE_MODEL
    temperature: float = 0.1
    top_p: float = 0.9
    seed: int = 42
    client: object = None
    extra: Mapping[str, object] | None = None
    #: an OpenAI-compatible server's base URL instead of OpenAI's (vLLM, SGLang, ...), and its key
    base_url: str | None = None
    api_key: str | None = None

    def __call__(self, prompt: str, max_tokens: int) -> str | None:
        if self.client is None:
            self.client = openai_client(self.base_url, self.api_key, "the GPT-4o judge")
        response = self.client.chat.completions.create(
            model=self.model,
            messages=[{"role": "user", "content": prompt}],
            max_tokens=max_tokens,
            temperature=self.temperature,
            top_p=self.top_p,
            seed=self.seed,
            **(self.extra or {}),
        )
        return response.choices[0].message.content
