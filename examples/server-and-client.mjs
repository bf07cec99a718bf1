// The server door: an executor served over WebSocket, and a client that runs a program on it while
// serving the program's tools from its own side. Here both live in one process for the example;
// the client (`@supolka/codemode-protocol/client`) runs as it is in Deno, a browser or a Worker.
import { randomBytes } from 'node:crypto';
import { ExecutorClient } from '@supolka/codemode-protocol/client';
import { createServer } from '@supolka/codemode-server';

// The server refuses a token shorter than 16 characters; anyone holding it can run programs.
const token = randomBytes(24).toString('hex');
const server = await createServer({ port: 0, token, executor: { poolSize: 1 } });
try {
  // Node's WebSocket can send the token in the upgrade; a browser passes { token } to connect instead.
  const socket = new WebSocket(server.url, { headers: { authorization: `Bearer ${token}` } });
  const client = await ExecutorClient.connect(socket);

  // The functions stay here: the server sends each call back over the socket, and the answer goes
  // to the program inside its isolate.
  const notes = new Map([['monday', 'call the plumber']]);
  const envelope = await client.execute({
    code: `async () => {
      await notes.write('tuesday', 'water the plants');
      const days = await notes.list();
      console.log('days', days.join(', '));
      return Promise.all(days.map((day) => notes.read(day)));
    }`,
    providers: [
      {
        name: 'notes',
        fns: {
          list: () => [...notes.keys()],
          read: (day) => notes.get(day),
          write: (day, text) => void notes.set(day, text),
        },
      },
    ],
  });
  console.log(envelope);
  client.close();
} finally {
  await server.close();
}
