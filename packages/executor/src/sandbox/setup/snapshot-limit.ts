/**
 * The bounds of a runtime snapshot handed from one process to another (handed-snapshot.ts). A module
 * of its own, so the pool's parent, which never loads isolated-vm, bounds the messages that carry
 * one (pool/messages/hand-on.ts, health.ts) by the same numbers the child keeps to.
 */

/** The most bytes the snapshot may hold. The runtime's is about 1 MB. */
export const SNAPSHOT_BYTES_LIMIT = 16 * 2 ** 20;

/**
 * The longest key a start travels under (runtimeSnapshotKey). A key is a few hundred characters;
 * the flags and NODE_OPTIONS are in it word for word, and a process whose key is longer keeps no
 * start for others.
 */
export const START_KEY_LIMIT = 16 * 1024;
