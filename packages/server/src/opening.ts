/**
 * The opening of a connection, up to an accepted hello. Until then the peer may be anybody, so it
 * gets little: OPENING_BYTE_LIMIT bytes in all, counted off the raw socket before ws buffers a
 * frame whole; helloTimeout to send its hello; and one message to get it right. The hello states
 * the protocol version and, when the upgrade carried no Authorization header, the token.
 *
 * A refusal is final. The state turns 'refused' before anything is sent, the connection ignores
 * every later message unread (ws goes on delivering them until the peer answers the close), and
 * the socket is dropped when the peer does not answer the close within CLOSE_GRACE. Otherwise a
 * refused peer could go on guessing tokens, or open with a second hello, for ws's 30 s.
 */
import type { Duplex } from 'node:stream';
import { tokenMatches } from '@supolka/codemode-executor/serving';
import {
  agreedVersion,
  CLOSE_CODES,
  type Decoded,
  decodeHotMessage,
  HELLO_FIRST_MESSAGE,
  HELLO_TOKEN_REFUSED_MESSAGE,
  type MessageOf,
  MIN_PROTOCOL_VERSION,
  PROTOCOL_VERSION,
  TOKEN_REFUSED_MESSAGE,
  UNAUTHORIZED_MESSAGE,
  UNAUTHORIZED_REASONS,
  versionMismatchMessage,
} from '@supolka/codemode-protocol/wire';
import type { RawData } from 'ws';
import { byteLengthOf, type Channel, textOf } from './channel.ts';
import type { AuthenticationFailure, ConnectionLog } from './log.ts';

/** Everything a peer may send before its hello is accepted: a hello is a few hundred bytes. */
export const OPENING_BYTE_LIMIT = 64 * 1024;

export type OpeningState = 'waiting' | 'open' | 'refused';

/**
 * What the upgrade showed: the token ('authenticated', or a server without one), no token
 * ('anonymous': it must come in the hello), or a token that is not the server's ('wrong token':
 * the connection is accepted only to say so, and refused at once).
 */
export type Admission = 'authenticated' | 'anonymous' | 'wrong token';

export interface OpeningSettings {
  /** The token a hello must carry when the upgrade did not; undefined when the server has none. */
  readonly token: string | undefined;
  readonly helloTimeout: number;
  /** The server's name, stated in its hello. */
  readonly instance: string | undefined;
}

export class Opening {
  readonly #channel: Channel;
  readonly #raw: Duplex;
  readonly #settings: OpeningSettings;
  readonly #timer: NodeJS.Timeout;
  readonly #log: ConnectionLog;
  #state: OpeningState = 'waiting';
  #protocol = MIN_PROTOCOL_VERSION;
  #authenticated: boolean;
  #received = 0;

  /** `raw` is the socket under the WebSocket. */
  constructor(
    channel: Channel,
    raw: Duplex,
    settings: OpeningSettings,
    admission: Admission,
    log: ConnectionLog,
  ) {
    this.#channel = channel;
    this.#log = log;
    this.#raw = raw;
    this.#settings = settings;
    this.#authenticated = admission === 'authenticated';
    // Ahead of ws's own listener, so a peer past the budget is cut off before ws parses the chunk.
    raw.prependListener('data', this.#count);
    this.#timer = setTimeout(() => this.#refuse(), settings.helloTimeout);
    if (admission === 'wrong token') this.#refuseToken(TOKEN_REFUSED_MESSAGE, 'wrong token in the upgrade');
  }

  get state(): OpeningState {
    return this.#state;
  }

  /**
   * No token seen, and not ended: what maxUnauthenticatedConnections counts. A refused connection
   * counts until its socket is gone (at most CLOSE_GRACE), so a peer that opens with a wrong token
   * over and over holds no more places than one that waits.
   */
  get unauthenticated(): boolean {
    return this.#state !== 'open' && !this.#authenticated;
  }

  /**
   * The peer's first message decides: an accepted hello opens the connection, anything else
   * refuses it. The hello's hot check decides it alone: it takes exactly the hellos the schema
   * takes (hot-messages.test.ts), and what it leaves undecided is no hello, refused in the same
   * words whatever the schema would say of it. So a peer that has shown no token cannot make the
   * server load the schemas (decode-on-demand.ts).
   */
  receive(data: RawData, isBinary: boolean): void {
    if (this.#state !== 'waiting') return;
    // The count of arriving bytes has usually cut such a peer off already. Checking the message as
    // well means nothing past the budget is ever parsed or hashed, whatever arrived before the count
    // began (bytes that came with the upgrade request).
    if (byteLengthOf(data) > OPENING_BYTE_LIMIT) {
      this.#drop();
      return;
    }
    if (isBinary) {
      this.#decide(undefined);
      return;
    }
    const decoded = decodeHotMessage(textOf(data));
    this.#decide(decoded.ok === undefined ? undefined : decoded);
  }

  /** The first message decoded (undefined: not a text, or nothing a hot check took) opens the connection or refuses it. */
  #decide(decoded: Decoded | undefined): void {
    const hello = decoded?.ok && decoded.message.type === 'hello' ? decoded.message : undefined;
    if (!this.#authenticated) {
      const token = this.#settings.token;
      if (hello?.token !== undefined && token !== undefined && !tokenMatches(token, hello.token)) {
        this.#refuseToken(HELLO_TOKEN_REFUSED_MESSAGE, 'wrong token in the hello');
        return;
      }
      if (hello === undefined || token === undefined || hello.token === undefined) {
        this.#refuse();
        return;
      }
      this.#authenticated = true;
    }
    if (hello === undefined) {
      this.#refuse();
      return;
    }
    const agreed = agreedVersion(hello.protocol);
    if (agreed === undefined) this.#refuseVersion(hello);
    else this.#open(agreed);
  }

  /** The protocol version the hello agreed on (the oldest until it did). */
  get protocol(): number {
    return this.#protocol;
  }

  /** The connection ended before the opening did. */
  end(): void {
    if (this.#state === 'waiting') this.#finish('refused');
  }

  /** Answers with the newest version both speak: a client of an older one gets exactly that one. */
  #open(protocol: number): void {
    this.#protocol = protocol;
    this.#finish('open');
    this.#log.helloAccepted();
    const instance = this.#settings.instance;
    this.#channel.sendOrThrow({
      type: 'hello',
      protocol,
      ...(instance ? { instance } : {}),
    });
  }

  /**
   * No valid opening in time, or a wrong one: say how to open, then close. (The opening sends only
   * fixed texts, far below PAYLOAD_LIMIT, so sendOrThrow cannot throw here.)
   */
  #refuse(): void {
    if (this.#state !== 'waiting') return;
    this.#finish('refused');
    if (this.#authenticated) {
      this.#channel.sendOrThrow({ type: 'fault', code: 'BAD_REQUEST', message: HELLO_FIRST_MESSAGE });
      this.#channel.close(CLOSE_CODES.protocol, 'no hello');
    } else {
      this.#log.authenticationFailed('no token');
      this.#channel.sendOrThrow({ type: 'fault', code: 'BAD_REQUEST', message: UNAUTHORIZED_MESSAGE });
      this.#channel.close(CLOSE_CODES.unauthorized, UNAUTHORIZED_REASONS.missing);
    }
  }

  /** A token that is not the server's, in the upgrade or the hello: say which, then close. */
  #refuseToken(message: string, cause: AuthenticationFailure): void {
    this.#finish('refused');
    this.#log.authenticationFailed(cause);
    this.#channel.sendOrThrow({ type: 'fault', code: 'BAD_REQUEST', message });
    this.#channel.close(CLOSE_CODES.unauthorized, UNAUTHORIZED_REASONS.wrong);
  }

  #refuseVersion(hello: MessageOf<'hello'>): void {
    this.#finish('refused');
    const message = versionMismatchMessage(MIN_PROTOCOL_VERSION, PROTOCOL_VERSION, hello.protocol);
    this.#channel.sendOrThrow({ type: 'fault', code: 'BAD_REQUEST', message });
    this.#channel.close(CLOSE_CODES.protocol, 'protocol version mismatch');
  }

  /** Past the byte budget: nothing it says is worth an answer. */
  #drop(): void {
    this.#finish('refused');
    this.#channel.terminate('opening bytes');
  }

  readonly #count = (chunk: Buffer): void => {
    this.#received += chunk.length;
    if (this.#received > OPENING_BYTE_LIMIT && this.#state === 'waiting') this.#drop();
  };

  #finish(state: 'open' | 'refused'): void {
    this.#state = state;
    clearTimeout(this.#timer);
    this.#raw.off('data', this.#count);
  }
}
