/**
 * The envelope's `hint`: what the object form's code should have looked like, beside the engine's
 * own error, for the two mistakes its entry contract makes likely (docs/protocol.md, "The entry
 * contract"). The form takes one async arrow; code written as statements (as the Code Mode form,
 * `run` and the MCP bridge take it) fails to compile with `Unexpected token 'const'`, and an
 * expression such as `1 + 1` fails when the entry calls its value, with `2 is not a function`. The
 * error text stays the engine's; the hint says what was expected and which forms take statements.
 * Each is given only where the host can tell that mistake from any other.
 */
import { NOT_A_FUNCTION_HINT, STATEMENTS_HINT } from '@supolka/codemode-protocol/wire';
import { parseFrame } from './stack.ts';

/** Compiles a script without running it; throws the engine's SyntaxError when it does not parse. */
export type CompileCheck = (source: string) => void;

function parses(compile: CompileCheck, source: string): boolean {
  try {
    compile(source);
    return true;
  } catch {
    return false;
  }
}

/**
 * STATEMENTS_HINT when the entry's arrow (`arrow`, as the entry placed it) does not parse as an
 * expression but the code after its imports (`body`) parses as the body of an async function;
 * undefined otherwise, so a syntax error elsewhere (a provider's prelude) or in code that parses
 * neither way gets none.
 */
export function statementsHint(compile: CompileCheck, arrow: string, body: string): string | undefined {
  if (parses(compile, `(\n${arrow}\n);`)) return undefined;
  return parses(compile, `(async () => {\n${body}\n});`) ? STATEMENTS_HINT : undefined;
}

/**
 * NOT_A_FUNCTION_HINT when the error's top frame is the entry's call of the arrow: the line after
 * the arrow (`callLine`), which holds only the sandbox's `)();`, so nothing else can throw there.
 */
export function notAFunctionHint(rawStack: string, entryName: string, callLine: number): string | undefined {
  for (const text of rawStack.split('\n', 8)) {
    const frame = parseFrame(text);
    if (frame === undefined) continue;
    return frame.file === entryName && frame.line === callLine ? NOT_A_FUNCTION_HINT : undefined;
  }
  return undefined;
}
