/**
 * DOMException (WebIDL, https://webidl.spec.whatwg.org/#idl-DOMException): an Error whose `name`
 * selects a legacy numeric `code`.
 */
import { tagInterface } from './global-scope.ts';
import { ErrorCtor, ObjectDefineProperty, ObjectHasOwn } from './primordials.ts';

/** The legacy code of each error name the table in WebIDL lists; other names have code 0. */
const LEGACY_CODES: Record<string, number> = {
  __proto__: null as unknown as number,
  IndexSizeError: 1,
  HierarchyRequestError: 3,
  WrongDocumentError: 4,
  InvalidCharacterError: 5,
  NoModificationAllowedError: 7,
  NotFoundError: 8,
  NotSupportedError: 9,
  InvalidStateError: 11,
  SyntaxError: 12,
  InvalidModificationError: 13,
  NamespaceError: 14,
  InvalidAccessError: 15,
  TypeMismatchError: 17,
  SecurityError: 18,
  NetworkError: 19,
  AbortError: 20,
  URLMismatchError: 21,
  QuotaExceededError: 22,
  TimeoutError: 23,
  InvalidNodeTypeError: 24,
  DataCloneError: 25,
};

export class DOMException extends ErrorCtor {
  #name: string;
  #message: string;

  constructor(message: unknown = '', name: unknown = 'Error') {
    super();
    this.#message = `${message}`;
    this.#name = `${name}`;
    // The message lives on the prototype accessor; drop the empty own one Error created.
    delete (this as { message?: string }).message;
  }

  override get name(): string {
    return this.#name;
  }

  override get message(): string {
    return this.#message;
  }

  get code(): number {
    return ObjectHasOwn(LEGACY_CODES, this.#name) ? (LEGACY_CODES[this.#name] as number) : 0;
  }
}

tagInterface(DOMException, 'DOMException');

/** The legacy constants, on the constructor and the prototype alike. */
const CONSTANTS: [string, number][] = [
  ['INDEX_SIZE_ERR', 1],
  ['DOMSTRING_SIZE_ERR', 2],
  ['HIERARCHY_REQUEST_ERR', 3],
  ['WRONG_DOCUMENT_ERR', 4],
  ['INVALID_CHARACTER_ERR', 5],
  ['NO_DATA_ALLOWED_ERR', 6],
  ['NO_MODIFICATION_ALLOWED_ERR', 7],
  ['NOT_FOUND_ERR', 8],
  ['NOT_SUPPORTED_ERR', 9],
  ['INUSE_ATTRIBUTE_ERR', 10],
  ['INVALID_STATE_ERR', 11],
  ['SYNTAX_ERR', 12],
  ['INVALID_MODIFICATION_ERR', 13],
  ['NAMESPACE_ERR', 14],
  ['INVALID_ACCESS_ERR', 15],
  ['VALIDATION_ERR', 16],
  ['TYPE_MISMATCH_ERR', 17],
  ['SECURITY_ERR', 18],
  ['NETWORK_ERR', 19],
  ['ABORT_ERR', 20],
  ['URL_MISMATCH_ERR', 21],
  ['QUOTA_EXCEEDED_ERR', 22],
  ['TIMEOUT_ERR', 23],
  ['INVALID_NODE_TYPE_ERR', 24],
  ['DATA_CLONE_ERR', 25],
];
for (const [constant, code] of CONSTANTS) {
  const descriptor = { value: code, writable: false, enumerable: true, configurable: false };
  ObjectDefineProperty(DOMException, constant, descriptor);
  ObjectDefineProperty(DOMException.prototype, constant, descriptor);
}
