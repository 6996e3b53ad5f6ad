"""A loopback stand-in for the OpenAI-compatible server ``pred.py`` posts to (http://127.0.0.1:8000/v1).

Every ``POST /v1/chat/completions`` is appended to LOG (one JSON line: the item's number, the kind of call,
and the request body as sent) and answered with the scripted reply for that item and kind of call
(``0shot``, ``no_context``, ``cot`` first call, ``cot_ans`` second call). One server per ``pred.py`` run:
``python fake_openai.py LOG``.
"""

from __future__ import annotations

import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

#: reply per item for single-call modes; "" makes pred.py skip the item (it is never written)
REPLIES = {
    1: "The correct answer is (A)",
    2: "**The correct answer is (B)**",
    3: "the correct answer is (c)",
    4: "The correct answer is D",
    5: "  The correct answer is (A).  \n",
    6: "",
    7: "I cannot determine the answer from the text.",
    8: "The correct answer is (B). On reflection, The correct answer is (C).",
    9: "The correct answer is (C)",
}
#: CoT first-call replies (stripped by pred.py before they fill $COT$); "" skips the item
COT_CHAINS = {
    6: "",
    2: "  Step 1: the text quotes $Q$, $DOC$ and $C_A$ literally.\nStep 2: so the answer is (B).  \n",
}
#: CoT second-call replies that differ from REPLIES
COT_ANSWERS = {7: ""}
#: replies that differ by model (its name as sent: "gpt..." or the Llama path) and call, so every
#: output file scores differently (Q06 answered by GPT in 0shot: one more row in its denominator)
BY_MODEL = {
    ("gpt", "0shot"): {1: "The correct answer is (B)", 6: "The correct answer is (B)", 9: "(A)"},
    ("meta-llama", "no_context"): {1: "The correct answer is (C)", 4: "The correct answer is (D)"},
    ("gpt", "no_context"): {2: "The correct answer is (A)", 3: "The correct answer is (C)", 5: "B"},
    ("gpt", "cot_ans"): {7: "The correct answer is (C)", 8: "The correct answer is (B)"},
}


def call_kind(body: dict, after_cot_first_call: bool) -> str:
    """``cot`` (first CoT call: 1024 tokens), ``cot_ans`` (the 128-token call right after one),
    ``no_context`` or ``0shot`` (by the prompt's opening, which every cut keeps)."""
    if body["max_tokens"] == 1024:
        return "cot"
    if after_cot_first_call:
        return "cot_ans"
    if body["messages"][-1]["content"].startswith("What is the correct answer to this question:"):
        return "no_context"
    return "0shot"


def reply(item: int, call: str, model: str) -> str:
    """The scripted reply to item ``item`` (1 = the data's first) in a call of kind ``call`` by ``model``."""
    for (prefix, call_of), replies in BY_MODEL.items():
        if model.startswith(prefix) and call_of == call and item in replies:
            return replies[item]
    if call == "cot":
        return COT_CHAINS.get(item, f"Reading the text for Q{item:02d}.\nThe evidence points one way.\n")
    if call == "cot_ans":
        return COT_ANSWERS.get(item, REPLIES[item])
    return REPLIES[item]


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        # pred.py --n_proc 1 asks about the items in file order, each CoT answer call right after its
        # first call: so the item is known without reading the prompt (a cut can remove its question)
        server = self.server
        call = call_kind(body, server.last_call == "cot")
        if call != "cot_ans":
            server.item += 1
        server.last_call = call
        with open(server.log_path, "a", encoding="utf-8") as log:
            logged = {"item": server.item, "call": call, "body": body}
            log.write(json.dumps(logged, ensure_ascii=False) + "\n")
        answer = {
            "id": "chatcmpl-fixture",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply(server.item, call, body["model"])},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


if __name__ == "__main__":
    server = HTTPServer(("127.0.0.1", 8000), Handler)
    server.log_path = sys.argv[1]
    server.item, server.last_call = 0, None
    server.serve_forever()
