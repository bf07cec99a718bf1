/**
 * The tools `codemode-executor run` serves when no --tools module is named: a small notebook and
 * some arithmetic, enough for a program to show tool calls crossing from its isolate to this
 * process and back. Each run gets a fresh notebook.
 */
import type { HostProvider } from '../executor/request.ts';

export function exampleTools(): HostProvider[] {
  const notes = new Map<string, string>([
    ['groceries', 'eggs, flour, milk'],
    ['ideas', 'a sandbox for code that models write'],
  ]);
  return [
    {
      name: 'notes',
      fns: {
        list: () => [...notes.keys()],
        read: (name: string) => {
          const text = notes.get(name);
          if (text === undefined) throw new Error(`No note is named ${name}.`);
          return text;
        },
        write: (name: string, text: string) => {
          notes.set(name, String(text));
          return { saved: name, notes: notes.size };
        },
      },
    },
    {
      name: 'math',
      fns: {
        add: (...numbers: number[]) => numbers.reduce((sum, n) => sum + n, 0),
        multiply: (...numbers: number[]) => numbers.reduce((product, n) => product * n, 1),
      },
    },
  ];
}
