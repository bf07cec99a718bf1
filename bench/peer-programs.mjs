// Programs the peer children run, shared by peers-node.ts and tool-call-breakdown.ts. Not a bench
// file itself: run.mjs runs only the .ts files of this folder.

/**
 * The plain Node child's tool-call program: on each `{"run":n}` line it makes n sequential calls,
 * each `{"call":i,"args":[i]}` out and `{"call":i,"result":...}` back, then writes `{"done":n}`.
 */
export const STDIO_TOOL_CHILD = `
const lines = require('node:readline').createInterface({ input: process.stdin });
let pending;
const call = (index) => new Promise((resolve) => {
  pending = resolve;
  process.stdout.write(JSON.stringify({ call: index, args: [index] }) + '\\n');
});
lines.on('line', async (line) => {
  const message = JSON.parse(line);
  if ('result' in message) return pending(message.result);
  for (let i = 0; i < message.run; i++) await call(i);
  process.stdout.write(JSON.stringify({ done: message.run }) + '\\n');
});
`;
