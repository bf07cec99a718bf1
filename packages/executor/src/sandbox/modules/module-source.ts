/**
 * What each entry of the module map compiles to: its kind's ES module source. A name absent from the
 * map and an entry of no kind are refused here, where the linker asks for the source.
 */
import {
  BadRequestError,
  errorText,
  ModuleNotFoundError,
  UnsupportedModuleKindError,
} from '@supolka/codemode-protocol/wire';
import { wrapCjs } from '../cjs.ts';
import type { FacadeNameMap } from '../sources/cjs-exports.ts';
import { moduleKind, type NormalizedModuleMap } from './module-map.ts';

/** The ES module source the entry `name` compiles to; a cjs facade exports its names in `facades`. */
export function moduleSource(
  map: NormalizedModuleMap,
  name: string,
  referrer: string,
  facades?: FacadeNameMap,
): string {
  const entry = map.get(name);
  if (entry === undefined) throw new ModuleNotFoundError(name, referrer);
  const kind = moduleKind(entry);
  if (kind === undefined) throw new UnsupportedModuleKindError(name);
  if (typeof entry === 'string') return entry;
  switch (kind) {
    case 'js':
      return entry.js as string;
    case 'cjs':
      return wrapCjs(name, facades?.get(name));
    case 'json':
      return jsonModule(name, entry.json);
    case 'text':
      return `export default ${JSON.stringify(entry.text)};`;
    case 'data':
      return dataModule(entry.data as string);
  }
}

/** Why a json entry cannot be compiled: its value has no JSON text. */
export function jsonModuleMessage(name: string, reason: string): string {
  return `Module '${name}' is a json module whose value has no JSON text: ${reason}.`;
}

/**
 * A json module is `JSON.parse` of its value's JSON text, run inside the isolate. Compiling the
 * text as an object literal instead would let an own "__proto__" key set the prototype of the
 * object holding it; JSON.parse makes it an own data property, at any depth. The text crosses as
 * one string literal, so the host does two linear stringify passes and never parses it.
 */
function jsonModule(name: string, value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new BadRequestError(jsonModuleMessage(name, errorText(error)));
  }
  if (text === undefined)
    throw new BadRequestError(
      jsonModuleMessage(name, `JSON.stringify gives undefined for a ${typeof value}`),
    );
  return `export default JSON.parse(${JSON.stringify(text)});`;
}

/** `export default` of an ArrayBuffer holding the base64 payload's bytes, decoded through atob. */
function dataModule(base64: string): string {
  return `const binary = globalThis.atob(${JSON.stringify(base64)});
const bytes = new Uint8Array(binary.length);
for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
export default bytes.buffer;`;
}
