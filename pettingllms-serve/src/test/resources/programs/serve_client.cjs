// The official OpenAI Node client against `pettingllms serve` (base URL from OPENAI_BASE_URL, model "tiny"):
// a chat request, a streamed chat with usage, a streamed completion, a completion with logprobs, a Responses API
// request, its stream through the client's accumulating helper, and a refused field. Prints one JSON line.
const OpenAI = require("openai");

async function main() {
  const client = new OpenAI({ maxRetries: 0 });
  const messages = [{ role: "user", content: process.env.BOARD }];
  const chat = await client.chat.completions.create({ model: "tiny", messages, max_tokens: 8, seed: 3 });
  let streamed = "";
  let usage = null;
  for await (const c of await client.chat.completions.create({
    model: "tiny", messages, max_tokens: 8, seed: 3, stream: true, stream_options: { include_usage: true },
  })) {
    if (c.choices.length > 0) streamed += c.choices[0].delta.content || "";
    if (c.usage) usage = c.usage;
  }
  let completion = "";
  for await (const c of await client.completions.create({
    model: "tiny", prompt: process.env.BOARD, max_tokens: 8, seed: 3, stream: true,
  })) {
    completion += c.choices[0].text;
  }
  const scored = await client.completions.create({
    model: "tiny", prompt: process.env.BOARD, max_tokens: 8, seed: 3, logprobs: 1,
  });
  const response = await client.responses.create({
    model: "tiny", input: process.env.BOARD, max_output_tokens: 8, seed: 3,
  });
  const types = [];
  const stream = client.responses.stream({ model: "tiny", input: process.env.BOARD, max_output_tokens: 8, seed: 3 });
  for await (const event of stream) types.push(event.type);
  const final = await stream.finalResponse();
  let responsesRefused = null;
  try {
    await client.responses.create({ model: "tiny", input: "hi", previous_response_id: "resp_1" });
  } catch (e) {
    responsesRefused = { status: e.status, param: e.param };
  }
  let refused = null;
  try {
    await client.chat.completions.create({ model: "tiny", messages, presence_penalty: 0.5 });
  } catch (e) {
    refused = { status: e.status, message: e.message, param: e.param };
  }
  console.log(JSON.stringify({
    chat: chat.choices[0].message.content, streamed, usage, completion, refused,
    scoredTokens: scored.choices[0].logprobs.tokens.length,
    scoredTop: scored.choices[0].logprobs.top_logprobs.map((t) => Object.keys(t).length),
    responseText: response.output_text, responseUsage: response.usage, responseStatus: response.status,
    types, finalText: final.output[0].content[0].text, finalStatus: final.status, responsesRefused,
  }));
}

main().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
