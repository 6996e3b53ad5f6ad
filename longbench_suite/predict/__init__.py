"""Generating a split's predictions with a model, as each upstream benchmark generates them.

>>> from longbench_suite.predict import predict
>>> url = "http://127.0.0.1:8000/v1"
>>> run = predict(["nq_8k"], "preds", endpoint=url, model="m", score=True)  # doctest: +SKIP

- :mod:`.requests`: one row's request (chat user turn or completion prompt, generation length, stop
  strings, decoding), from the task's declaration;
- :mod:`.backends`: an OpenAI-compatible server through the ``openai`` client; :mod:`.local`: a
  Hugging Face model in-process;
- :mod:`.journal`: the resumable predictions file; :mod:`.runner`: N requests in flight, progress;
- :mod:`.tables`: results tables and the score-against-length plot; :mod:`.run`: the whole command.
"""

from .backends import Backend, OpenAIBackend, Reply
from .requests import Request, request_for, requests_for
from .run import PredictRun, predict
from .runner import predict_split

__all__ = [
    "Backend",
    "OpenAIBackend",
    "PredictRun",
    "Reply",
    "Request",
    "predict",
    "predict_split",
    "request_for",
    "requests_for",
]
