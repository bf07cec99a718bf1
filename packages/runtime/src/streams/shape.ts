/**
 * The members each stream interface publishes, in the order a program lists them: what the
 * snapshot holds of the Streams standard before the polyfill itself is loaded (./index.ts). The
 * build compares this with the polyfill's own classes (scripts/build-streams-piece.mjs, publicShape)
 * and stops when they differ.
 */
export type MemberKind = 'method' | 'getter';

export interface InterfaceShape {
  /** Own members of the prototype; `@@asyncIterator` is Symbol.asyncIterator. */
  readonly prototype: readonly (readonly [string, MemberKind])[];
  readonly statics: readonly (readonly [string, MemberKind])[];
}

/** Each of `keys` as a member of the kind given. */
function membersOf<Kind extends MemberKind>(
  kind: Kind,
  keys: readonly string[],
): (readonly [string, Kind])[] {
  const members: (readonly [string, Kind])[] = [];
  for (let index = 0; index < keys.length; index++) members[index] = [keys[index] as string, kind];
  return members;
}
const getters = (...keys: string[]) => membersOf('getter', keys);
const methods = (...keys: string[]) => membersOf('method', keys);
const shape = (
  prototype: (readonly [string, MemberKind])[],
  statics: (readonly [string, MemberKind])[] = [],
): InterfaceShape => ({ prototype, statics });

export const STREAM_INTERFACES = {
  ReadableStream: shape(
    [
      ...getters('locked'),
      ...methods('cancel', 'getReader', 'pipeThrough', 'pipeTo', 'tee', 'values', '@@asyncIterator'),
    ],
    methods('from'),
  ),
  ReadableStreamDefaultReader: shape([...getters('closed'), ...methods('cancel', 'read', 'releaseLock')]),
  ReadableStreamBYOBReader: shape([...getters('closed'), ...methods('cancel', 'read', 'releaseLock')]),
  ReadableStreamBYOBRequest: shape([...getters('view'), ...methods('respond', 'respondWithNewView')]),
  ReadableByteStreamController: shape([
    ...getters('byobRequest', 'desiredSize'),
    ...methods('close', 'enqueue', 'error'),
  ]),
  ReadableStreamDefaultController: shape([
    ...getters('desiredSize'),
    ...methods('close', 'enqueue', 'error'),
  ]),
  WritableStream: shape([...getters('locked'), ...methods('abort', 'close', 'getWriter')]),
  WritableStreamDefaultWriter: shape([
    ...getters('closed', 'desiredSize', 'ready'),
    ...methods('abort', 'close', 'releaseLock', 'write'),
  ]),
  WritableStreamDefaultController: shape([...getters('abortReason', 'signal'), ...methods('error')]),
  TransformStream: shape(getters('readable', 'writable')),
  TransformStreamDefaultController: shape([
    ...getters('desiredSize'),
    ...methods('enqueue', 'error', 'terminate'),
  ]),
  ByteLengthQueuingStrategy: shape(getters('highWaterMark', 'size')),
  CountQueuingStrategy: shape(getters('highWaterMark', 'size')),
} as const satisfies Record<string, InterfaceShape>;

export type StreamInterfaceName = keyof typeof STREAM_INTERFACES;
