// A message's life on the wire: encoded with the codec, decoded, validated, and refused when
// malformed. Run it with `pnpm --filter @supolka/codemode-protocol example` after a build.
import {
  decodeMessage,
  encodeMessage,
  PROTOCOL_VERSION,
  separateImports,
  validateProviders,
} from '@supolka/codemode-protocol';

const code = `import { greet } from 'greeter'
async () => greet(await files.read('notes.txt'))`;
validateProviders([{ name: 'files' }]);
console.log('imports and body:', separateImports(code));

const text = encodeMessage({
  type: 'execute',
  id: 'run-1',
  request: {
    code,
    modules: { greeter: "export const greet = (s) => 'hello ' + s" },
    providers: [{ name: 'files' }],
  },
});
console.log(`protocol ${PROTOCOL_VERSION}, execute message on the wire:`, text);
console.log('decoded:', decodeMessage(text));

const binary = encodeMessage({
  type: 'dispatchReply',
  id: 'run-1',
  call: 0,
  frame: ['returned', JSON.stringify({ result: 'notes' })],
});
console.log('dispatch reply:', binary);
console.log('malformed:', decodeMessage('{"type":"execute","id":"run-2","request":{"code":1,"timeout":0}}'));
