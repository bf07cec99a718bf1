/**
 * Every sentence a diverged resume ends with (session.ts), defined once. Each says which call
 * differed and what to do; none repeats an argument or an answer, which the journal keeps secret.
 */

/** The code a diverged resume's envelope carries (the protocol's, since the wire carries it too). */
import { IN_FLIGHT_CALL_LIMIT, PAYLOAD_LIMIT } from '@supolka/codemode-protocol/wire';

export { REPLAY_DIVERGED } from '@supolka/codemode-protocol/wire';

const AFTER =
  'The program must make the same calls, with the same arguments, in the same order, to be resumed; start the run again.';

export function divergedPastJournalMessage(sequence: number, provider: string, tool: string): string {
  return `Replay diverged: call ${sequence} (${provider}.${tool}) is past the journal, made before the journal was served, after more such calls than may be in flight at once (${IN_FLIGHT_CALL_LIMIT}, or ${PAYLOAD_LIMIT} characters of arguments); each would wait with its arguments until the run is live. ${AFTER}`;
}

export function divergedOrderMessage(
  sequence: number,
  recorded: { readonly provider: string; readonly tool: string },
  provider: string,
  tool: string,
): string {
  return `Replay diverged: call ${sequence} was ${recorded.provider}.${recorded.tool} in the paused run and is ${provider}.${tool} now. ${AFTER}`;
}

export function divergedArgumentsMessage(sequence: number, provider: string, tool: string): string {
  return `Replay diverged: call ${sequence} (${provider}.${tool}) has other arguments than in the paused run. ${AFTER}`;
}

export function divergedCallMessage(made: number, length: number): string {
  return `Replay diverged: the program stopped after making ${made} of the ${length} calls the paused run had made. ${AFTER}`;
}

export function divergedObservationMessage(sequence: number): string {
  return `Replay diverged: the program was not waiting for the answer of call ${sequence} when the paused run had observed it. ${AFTER}`;
}

export function divergedTimerMessage(index: number): string {
  return `Replay diverged: timer ${index} was set with another delay than in the paused run. ${AFTER}`;
}

export function divergedFetchMessage(index: number): string {
  return `Replay diverged: fetch request ${index} has another method, URL, headers or body than in the paused run. ${AFTER}`;
}
