/**
 * The version of the wire protocol this package speaks. A peer that speaks another version
 * is refused at the hello with a fault naming both (docs/protocol.md, "Versions").
 * Bump it when a message changes shape in a way an older peer would misread.
 */
export const PROTOCOL_VERSION = 1;
