// The scout-and-solver guessing program with the official OpenAI Node client, unchanged but for the base URL
// (read by the client from OPENAI_BASE_URL): the scout's call is a plain request, the solver's a stream. Prints the
// episode's reward on its last line.
const OpenAI = require("openai");

async function main() {
  const client = new OpenAI({ maxRetries: 0 });
  const problem = JSON.parse(process.env.PETTINGLLMS_PROBLEM);
  const scout = await client.chat.completions.create({
    model: "scout",
    messages: [{ role: "user", content: "guess a digit" }],
  });
  const guess = scout.choices[0].message.content;
  const stream = await client.chat.completions.create({
    model: "solver",
    messages: [{ role: "user", content: "the scout guessed " + guess + "; your digit?" }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let answer = "";
  for await (const chunk of stream) {
    if (chunk.choices.length > 0) {
      answer += chunk.choices[0].delta.content || "";
    }
  }
  console.log(answer.trim() === String(problem.seed) ? 1.0 : 0.0);
}

main().catch((e) => {
  console.error(String(e));
  process.exit(1);
});
