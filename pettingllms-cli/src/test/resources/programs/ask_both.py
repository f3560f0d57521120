"""Asks the tool, then the planner, through the OpenAI chat API at $OPENAI_BASE_URL; reward 1 when the planner
answers anything (a smoke test of train --program-command, not a way to play)."""
import json
import os
import urllib.request


def chat(role, text):
    body = json.dumps({"model": role, "messages": [{"role": "user", "content": text}]}).encode()
    request = urllib.request.Request(os.environ["OPENAI_BASE_URL"] + "/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)["choices"][0]["message"]["content"]


problem = json.loads(os.environ["PETTINGLLMS_PROBLEM"])
tool = chat("tool", "problem " + problem["id"])
plan = chat("plan", "the tool says " + tool)
print(1.0 if plan else 0.0)
