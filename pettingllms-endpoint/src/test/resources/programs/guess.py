"""The scout-and-solver guessing program over the OpenAI chat API, with the standard library only (an official
OpenAI client works the same: it needs the base URL alone). Prints the episode's reward on its last line."""
import json
import os
import urllib.request

BASE = os.environ["OPENAI_BASE_URL"]
PROBLEM = json.loads(os.environ["PETTINGLLMS_PROBLEM"])


def chat(role, text):
    body = json.dumps({"model": role, "messages": [{"role": "user", "content": text}]}).encode()
    request = urllib.request.Request(BASE + "/chat/completions", data=body,
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + os.environ["OPENAI_API_KEY"]})
    with urllib.request.urlopen(request) as response:
        return json.load(response)["choices"][0]["message"]["content"]


guess = chat("scout", "guess a digit")
answer = chat("solver", "the scout guessed " + guess + "; your digit?")
print(1.0 if answer.strip() == str(PROBLEM["seed"]) else 0.0)
