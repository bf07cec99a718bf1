/**
 * The most bytes a runtime snapshot handed from one process to another may hold (handed-snapshot.ts).
 * A module of its own, so the pool's parent, which never loads isolated-vm, bounds the message that
 * carries one (pool/messages/hand-on.ts) by the same number the child checks. The runtime's
 * snapshot is about 1 MB.
 */
export const SNAPSHOT_BYTES_LIMIT = 16 * 2 ** 20;
