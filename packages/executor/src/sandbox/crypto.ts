/**
 * The host's half of crypto.subtle: the crypto bridge (the seed's "Crypto bridge" section; the
 * runtime's half is packages/runtime/src/crypto/bridge.ts). The isolate has no cryptography of its
 * own: it names an operation and hands the arguments over as data, the bridge performs it on the
 * host's webcrypto, and the outcome goes back as a frame.
 *
 * Key material never enters the isolate. A key the host produced stays in this bridge's Map and
 * the isolate gets a description (type, extractable, algorithm, usages) beside the number that
 * names it. On the way in, one walk over the arguments swaps every `{ cryptoKey: n }` back for
 * the key, nested ones too (the public key of ECDH); on the way out, one level of a record is
 * walked, which is what generateKey's key pair needs. A non-extractable key stays so whatever the
 * program does to the object it holds, because there is nothing in that object to read.
 *
 * The work runs on the host's thread pool, where the isolate's memory limit never meters it and no
 * interrupt reaches a started operation, so the bridge has bounds of its own: KEY_LIMIT keys per
 * execution, and one operation at a time on a per-execution chain. An operation still queued when
 * the isolate is gone never starts. The reference never rejects: a failure crosses as a frame with
 * the exception's name, since isolated-vm would report a rejection as unhandled on the host.
 */
import type { webcrypto } from 'node:crypto';
import { isCryptoKey } from 'node:util/types';
import {
  EXECUTION_ENDED_MESSAGE,
  KEY_LIMIT,
  NOT_A_CRYPTO_KEY_MESSAGE,
} from '@supolka/codemode-protocol/wire';
import ivm from 'isolated-vm';
import { HeldAnswers } from './crossing/answers.ts';
import type { IsolateHandle } from './isolate.ts';
import { nodeCrypto } from './node-crypto.ts';

type HostKey = webcrypto.CryptoKey;
type Subtle = webcrypto.SubtleCrypto;

/**
 * What crosses back: `["returned", value]`, or `["thrown", name, message, isDOMException]` so the
 * isolate rebuilds a DOMException for DOMException names and the language's error for the rest
 * (a SyntaxError is either, in WebCrypto usually the DOMException).
 */
export type SubtleFrame = readonly ['returned', unknown] | readonly ['thrown', string, string, boolean];

/** A key as the isolate knows it: the number that names it and its description. */
export interface KeyDescription {
  readonly cryptoKey: number;
  readonly type: string;
  readonly extractable: boolean;
  readonly algorithm: Record<string, unknown>;
  readonly usages: string[];
}

/** The text a key beyond KEY_LIMIT fails with (a QuotaExceededError inside the isolate). */
export function keyLimitMessage(limit: number): string {
  return `This execution has created ${limit} CryptoKeys, the most one execution may create.`;
}

/** The TypeError text for an operation name outside SubtleCrypto's declared methods. */
export function unknownOperationMessage(name: string): string {
  return `"${name}" is not an operation of SubtleCrypto.`;
}

type Perform = (subtle: Subtle, args: readonly unknown[]) => Promise<unknown>;

/**
 * The methods SubtleCrypto declares (https://w3c.github.io/webcrypto/#subtlecrypto-interface), each
 * called with exactly its declared arguments. The name from the isolate is looked up here and never
 * reached on the host's object, whose implementation has members the standard does not declare.
 * Each entry says how many keys a success may create.
 */
const OPERATIONS = new Map<string, { readonly perform: Perform; readonly createsKeys: boolean }>([
  [
    'encrypt',
    { perform: (s, a) => s.encrypt(a[0] as never, a[1] as never, a[2] as never), createsKeys: false },
  ],
  [
    'decrypt',
    { perform: (s, a) => s.decrypt(a[0] as never, a[1] as never, a[2] as never), createsKeys: false },
  ],
  ['sign', { perform: (s, a) => s.sign(a[0] as never, a[1] as never, a[2] as never), createsKeys: false }],
  [
    'verify',
    {
      perform: (s, a) => s.verify(a[0] as never, a[1] as never, a[2] as never, a[3] as never),
      createsKeys: false,
    },
  ],
  [
    'digest',
    {
      // MD5 is not WebCrypto's, so Node's webcrypto refuses it; workerd digests it, and so does this.
      perform: (s, a) =>
        nameOf(a[0]) === 'MD5'
          ? Promise.resolve(hashBytes('md5', a[1]))
          : s.digest(a[0] as never, a[1] as never),
      createsKeys: false,
    },
  ],
  [
    'generateKey',
    { perform: (s, a) => s.generateKey(a[0] as never, a[1] as never, a[2] as never), createsKeys: true },
  ],
  [
    'deriveKey',
    {
      perform: (s, a) =>
        s.deriveKey(a[0] as never, a[1] as never, a[2] as never, a[3] as never, a[4] as never),
      createsKeys: true,
    },
  ],
  [
    'deriveBits',
    { perform: (s, a) => s.deriveBits(a[0] as never, a[1] as never, a[2] as never), createsKeys: false },
  ],
  [
    'importKey',
    {
      perform: (s, a) =>
        s.importKey(a[0] as never, a[1] as never, a[2] as never, a[3] as never, a[4] as never),
      createsKeys: true,
    },
  ],
  ['exportKey', { perform: (s, a) => s.exportKey(a[0] as never, a[1] as never), createsKeys: false }],
  [
    'wrapKey',
    {
      perform: (s, a) => s.wrapKey(a[0] as never, a[1] as never, a[2] as never, a[3] as never),
      createsKeys: false,
    },
  ],
  [
    'unwrapKey',
    {
      perform: (s, a) =>
        s.unwrapKey(
          a[0] as never,
          a[1] as never,
          a[2] as never,
          a[3] as never,
          a[4] as never,
          a[5] as never,
          a[6] as never,
        ),
      createsKeys: true,
    },
  ],
]);

/** The names of the operations the bridge serves. */
export const SUBTLE_OPERATIONS: readonly string[] = [...OPERATIONS.keys()];

/** How deep the argument walk goes; what the runtime sends is at most four levels deep. */
const WALK_DEPTH = 8;

/** A failure that crosses with the name it carries. */
/**
 * Why a durable run may not generate, import, derive or unwrap a key: key material made on the
 * host is not in the journal, and putting it there would carry it out of the server in the token.
 */
export const DURABLE_KEYS_MESSAGE =
  'A durable run cannot create crypto.subtle keys (generateKey, importKey, deriveKey, unwrapKey): a resume could not give it the same key without the key leaving the server. Run it without durable, or keep the keys in a tool.';

class BridgeError extends Error {
  readonly errorName: string;
  readonly isDOMException: boolean;

  constructor(errorName: string, message: string, isDOMException: boolean) {
    super(message);
    this.errorName = errorName;
    this.isDOMException = isDOMException;
  }
}

export interface CryptoBridgeOptions {
  /** The webcrypto the operations run on (default: Node's). */
  readonly subtle?: Subtle;
  /** Keys one execution may create (default KEY_LIMIT). */
  readonly keyLimit?: number;
  /**
   * Whether the execution is durable: a durable run may not create keys (docs/durable.md), since
   * a resume could not give the program the same key material again without the journal carrying
   * it out of the server.
   */
  readonly durable?: () => boolean;
  /** Bytes of arguments the queued and running operations may hold (default: unbounded). */
  readonly queuedByteLimit?: number;
}

/** The text an operation fails with when the arguments already queued on the host hold too much. */
export function queuedBytesMessage(limit: number): string {
  return `The crypto.subtle operations of this execution already hold ${limit} bytes of arguments on the host, the most they may hold.`;
}

/**
 * What an operation's arguments take on the host: buffers their length, strings two bytes a unit,
 * each entry a few bytes more. The runtime measures the same before the copy (its crossing.ts);
 * this is the host's own check, for a runtime that did not.
 */
export function argumentBytes(value: unknown, depth = 0): number {
  if (typeof value === 'string') return value.length * 2;
  if (typeof value !== 'object' || value === null || depth > WALK_DEPTH) return 8;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value.byteLength;
  let total = 0;
  for (const item of Array.isArray(value) ? value : Object.values(value))
    total += 8 + argumentBytes(item, depth + 1);
  return total;
}

/** One bridge per isolate: its keys, its count of keys created, and its chain of operations. */
export class CryptoBridge {
  readonly #isAlive: () => boolean;
  /** Given, or Node's, looked up at the first operation (node-crypto.ts says why). */
  readonly #subtle: Subtle | undefined;
  readonly #keyLimit: number;
  readonly #keys = new Map<number, HostKey>();
  readonly #queuedByteLimit: number;
  #created = 0;
  #queued = 0;
  #chain: Promise<unknown> = Promise.resolve();

  readonly #durable: () => boolean;

  constructor(isAlive: () => boolean, options: CryptoBridgeOptions = {}) {
    this.#isAlive = isAlive;
    this.#subtle = options.subtle;
    this.#keyLimit = options.keyLimit ?? KEY_LIMIT;
    this.#queuedByteLimit = options.queuedByteLimit ?? Number.POSITIVE_INFINITY;
    this.#durable = options.durable ?? (() => false);
  }

  /** Keys this bridge holds. */
  get keyCount(): number {
    return this.#keys.size;
  }

  /**
   * Performs one operation after every operation the execution asked for before it has settled.
   * Never rejects.
   */
  perform(operation: unknown, args: unknown): Promise<SubtleFrame> {
    // The copy is already here; refusing it at once keeps it from waiting on the chain.
    const bytes = argumentBytes(args);
    if (this.#queued + bytes > this.#queuedByteLimit)
      return Promise.resolve(
        failureFrame(new BridgeError('QuotaExceededError', queuedBytesMessage(this.#queuedByteLimit), true)),
      );
    this.#queued += bytes;
    const turn = this.#chain
      .then(() => this.#run(operation, args))
      .finally(() => {
        this.#queued -= bytes;
      });
    this.#chain = turn;
    return turn;
  }

  async #run(operation: unknown, args: unknown): Promise<SubtleFrame> {
    try {
      // An operation whose isolate is gone never starts.
      if (!this.#isAlive()) throw new BridgeError('Error', EXECUTION_ENDED_MESSAGE, false);
      const entry = typeof operation === 'string' ? OPERATIONS.get(operation) : undefined;
      if (entry === undefined)
        throw new BridgeError('TypeError', unknownOperationMessage(String(operation)), false);
      if (!Array.isArray(args))
        throw new BridgeError('TypeError', 'The operation arguments are not a list.', false);
      if (entry.createsKeys && this.#durable())
        throw new BridgeError('NotSupportedError', DURABLE_KEYS_MESSAGE, true);
      if (entry.createsKeys && this.#created >= this.#keyLimit) throw this.#keyLimitError();
      const result = await entry.perform(
        this.#subtle ?? nodeCrypto().webcrypto.subtle,
        this.#swapKeys(args, 0) as unknown[],
      );
      if (operation === 'exportKey' && args[0] === 'jwk') return ['returned', inWorkerdOrder(result)];
      return ['returned', this.#describeResult(result)];
    } catch (error) {
      return failureFrame(error, operation, args);
    }
  }

  /** The walk in: every `{ cryptoKey: n }`, at any depth, becomes the key the number names. */
  #swapKeys(value: unknown, depth: number): unknown {
    if (typeof value !== 'object' || value === null) return value;
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value;
    if (depth > WALK_DEPTH)
      throw new BridgeError('TypeError', 'The operation arguments are nested too deeply.', false);
    if (Array.isArray(value)) return value.map((item) => this.#swapKeys(item, depth + 1));
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === 'cryptoKey') {
      const number = (value as { cryptoKey: unknown }).cryptoKey;
      const key = typeof number === 'number' ? this.#keys.get(number) : undefined;
      if (key === undefined) throw new BridgeError('TypeError', NOT_A_CRYPTO_KEY_MESSAGE, false);
      return key;
    }
    const swapped: Record<string, unknown> = {};
    for (const key of keys) swapped[key] = this.#swapKeys((value as Record<string, unknown>)[key], depth + 1);
    return swapped;
  }

  /** The walk out: a key, or the keys one level down in a record (a CryptoKeyPair), become descriptions. */
  #describeResult(result: unknown): unknown {
    if (isHostKey(result)) return this.#register([result])[0];
    if (
      typeof result !== 'object' ||
      result === null ||
      result instanceof ArrayBuffer ||
      Array.isArray(result)
    )
      return result;
    const entries = Object.entries(result);
    const keys = entries.filter(([, value]) => isHostKey(value)).map(([, value]) => value as HostKey);
    if (keys.length === 0) return result;
    const descriptions = this.#register(keys);
    let next = 0;
    return Object.fromEntries(
      entries.map(([name, value]) => [name, isHostKey(value) ? descriptions[next++] : value]),
    );
  }

  /** Holds new keys, all or none, within the execution's KEY_LIMIT. */
  #register(keys: readonly HostKey[]): KeyDescription[] {
    if (this.#created + keys.length > this.#keyLimit) throw this.#keyLimitError();
    return keys.map((key) => {
      const number = this.#created++;
      this.#keys.set(number, key);
      return describeKey(number, key);
    });
  }

  #keyLimitError(): BridgeError {
    return new BridgeError('QuotaExceededError', keyLimitMessage(this.#keyLimit), true);
  }
}

/**
 * Whether `value` is one of Node's CryptoKeys. Asked of node:util/types, not of the global
 * CryptoKey: a caller that embeds the sandbox in its own process may have replaced that global, and
 * reading it at load would have loaded Node's webcrypto with this module (node-crypto.ts). Not of
 * node:util either: the child's bundle reads every property of a builtin it imports, and node:util's
 * load what they name on that read (worker_threads, parseArgs, streams: about 10 ms of a child's
 * start, entry-points.test.ts).
 */
function isHostKey(value: unknown): value is HostKey {
  return isCryptoKey(value);
}

/** A key's description, as plain data: what the isolate's CryptoKey shows. */
export function describeKey(number: number, key: HostKey): KeyDescription {
  const source = key.algorithm as unknown as Record<string, unknown>;
  const algorithm: Record<string, unknown> = { name: source.name };
  if (typeof source.modulusLength === 'number') algorithm.modulusLength = source.modulusLength;
  if (source.publicExponent instanceof Uint8Array)
    algorithm.publicExponent = new Uint8Array(source.publicExponent);
  const hash = source.hash as { name?: unknown } | undefined;
  if (hash !== undefined) algorithm.hash = { name: hash.name };
  if (typeof source.namedCurve === 'string') algorithm.namedCurve = source.namedCurve;
  if (typeof source.length === 'number') algorithm.length = source.length;
  return {
    cryptoKey: number,
    type: key.type,
    extractable: key.extractable,
    algorithm,
    usages: [...key.usages],
  };
}

/** The name of an algorithm as the isolate sends it (a normalized dictionary). */
function nameOf(algorithm: unknown): unknown {
  return typeof algorithm === 'object' && algorithm !== null
    ? (algorithm as { name?: unknown }).name
    : undefined;
}

function byteLength(data: unknown): number {
  return ArrayBuffer.isView(data) || data instanceof ArrayBuffer ? data.byteLength : 0;
}

/** The digest of `data` (an ArrayBuffer or a view) with Node's synchronous hash `hash`. */
function hashBytes(hash: string, data: unknown): ArrayBuffer {
  const bytes = ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data instanceof ArrayBuffer ? data : new ArrayBuffer(0));
  const digest = nodeCrypto().createHash(hash).update(bytes).digest();
  return digest.buffer.slice(digest.byteOffset, digest.byteOffset + digest.byteLength) as ArrayBuffer;
}

/** workerd's order of a JWK's members (observed): kty, key_ops, alg, ext, then the key's own. */
const JWK_ORDER = [
  'kty',
  'key_ops',
  'alg',
  'ext',
  'crv',
  'x',
  'y',
  'd',
  'n',
  'e',
  'p',
  'q',
  'dp',
  'dq',
  'qi',
  'oth',
  'k',
];

/** An exported JWK with its members in workerd's order, so JSON.stringify of it reads the same. */
function inWorkerdOrder(jwk: unknown): unknown {
  if (typeof jwk !== 'object' || jwk === null) return jwk;
  const source = jwk as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const name of JWK_ORDER) if (Object.hasOwn(source, name)) ordered[name] = source[name];
  for (const name of Object.keys(source)) if (!Object.hasOwn(ordered, name)) ordered[name] = source[name];
  return ordered;
}

const DECRYPTION_FAILED =
  'Decryption failed. This could be due to a ciphertext authentication failure, bad padding, incorrect CryptoKey, or another algorithm-specific reason.';

/** Node's text for every OperationError of a cipher, which says nothing of the cause. */
const NODE_OPERATION_FAILED = 'The operation failed for an operation-specific reason';

/**
 * workerd's texts for the failures Node reports with NODE_OPERATION_FAILED, by operation and
 * algorithm, with the lengths workerd reports (observed on workerd 2026-11-17).
 */
function workerdText(operation: unknown, args: unknown): string | undefined {
  const list = Array.isArray(args) ? args : [];
  if (operation === 'decrypt' || operation === 'encrypt') {
    const name = nameOf(list[0]);
    if (name === 'RSA-OAEP') return 'RSA-OAEP failed encrypt/decrypt.';
    if (operation !== 'decrypt') return undefined;
    const length = byteLength(list[2]);
    if (name === 'AES-GCM') {
      const tagLength = (list[0] as { tagLength?: unknown }).tagLength;
      const tagBits = typeof tagLength === 'number' ? tagLength : 128;
      if (length * 8 < tagBits)
        return `Ciphertext length of ${length * 8} bits must be greater than or equal to the size of the AES-GCM tag length of ${tagBits} bits.`;
      const plaintext = length - tagBits / 8;
      return `${DECRYPTION_FAILED} Input length was ${plaintext}, output length expected to be ${plaintext} for AES-GCM`;
    }
    if (name === 'AES-CBC') {
      // What workerd expects to write: every whole block but the padded last one.
      const output = Math.max(0, Math.floor((length - 1) / 16) * 16);
      return `${DECRYPTION_FAILED} Input length was ${length}, output length expected to be ${output} for AES-CBC`;
    }
    if (name === 'AES-CTR') return DECRYPTION_FAILED;
  }
  if (operation === 'unwrapKey' && nameOf(list[3]) === 'AES-KW') {
    const length = byteLength(list[1]);
    if (length % 8 !== 0)
      return `Provided a wrapped key to unwrap that is ${length * 8} bits which isn't a multiple of 64 bits.`;
    return 'AES-KW key unwrapping failed.';
  }
  return undefined;
}

/** A failure as it crosses: its name beside its text, and whether it was a DOMException. */
function failureFrame(error: unknown, operation?: unknown, args?: unknown): SubtleFrame {
  if (error instanceof BridgeError) return ['thrown', error.errorName, error.message, error.isDOMException];
  if (error instanceof DOMException) {
    const text =
      error.name === 'OperationError' && error.message === NODE_OPERATION_FAILED
        ? (workerdText(operation, args) ?? error.message)
        : error.message;
    return ['thrown', error.name, text, true];
  }
  if (error instanceof Error) {
    const name = typeof error.name === 'string' && error.name !== '' ? error.name : 'Error';
    return ['thrown', name, error.message, false];
  }
  return ['thrown', 'Error', safeText(error), false];
}

function safeText(value: unknown): string {
  try {
    return String(value);
  } catch {
    return 'The operation failed with a value that cannot be turned into text.';
  }
}

/**
 * digest at a module's top level, where the isolate may not wait on the host: hashed now, with
 * Node's synchronous hashes, and answered as a frame. workerd digests there too.
 */
export function digestNow(args: unknown): SubtleFrame {
  try {
    const list = Array.isArray(args) ? args : [];
    const hash = SYNC_HASHES[String(nameOf(list[0]))];
    if (hash === undefined)
      throw new BridgeError(
        'NotSupportedError',
        'Unrecognized or unimplemented digest algorithm requested.',
        true,
      );
    return ['returned', hashBytes(hash, list[1])];
  } catch (error) {
    return failureFrame(error);
  }
}

const SYNC_HASHES: Record<string, string> = {
  __proto__: null,
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
} as unknown as Record<string, string>;

/**
 * The reference the runtime's crypto.subtle calls, for one isolate: a bridge of its own. A call
 * with `now` is a digest in global scope, made with applySync and answered at once.
 *
 * Any other operation answers asynchronously with only the number its frame is held under, and
 * the runtime takes the frame at once with a synchronous call of that number alone (crossing/answers.ts):
 * a frame copied in asynchronously carries an ArrayBuffer, whose copy into an isolate near its
 * memory limit aborts the process, even a 32-byte digest. Taken synchronously, it ends the run.
 */
export function subtleReference(handle: IsolateHandle, durable?: () => boolean): ivm.Reference<unknown> {
  // The runtime holds what is in flight to the memory limit; the host holds the same line.
  const bridge = new CryptoBridge(() => !handle.isolate.isDisposed, {
    queuedByteLimit: handle.memoryLimit * 2 ** 20,
    ...(durable ? { durable } : {}),
  });
  const held = new HeldAnswers<SubtleFrame>();
  return new ivm.Reference((operation: unknown, args: unknown, now?: unknown) => {
    if (typeof operation === 'number') return held.take(operation);
    if (now === true && operation === 'digest') return digestNow(args);
    return bridge.perform(operation, args).then((frame) => held.hold(frame));
  });
}
