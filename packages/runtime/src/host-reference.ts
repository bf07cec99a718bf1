/**
 * An isolated-vm Reference as code inside the isolate sees it: the one declaration, which the
 * runtime's host handshake (host.ts) and the sandbox's own isolate-side code
 * (packages/executor/src/sandbox/inside/host.ts) both use. Declarations only: the build copies this
 * file as it is to dist/host-reference.d.ts (@supolka/codemode-runtime/host-reference).
 */
export interface HostReference {
  apply(receiver: undefined, args: readonly unknown[], options?: object): Promise<unknown>;
  applySync(receiver: undefined, args: readonly unknown[], options?: object): unknown;
  applyIgnored(receiver: undefined, args: readonly unknown[], options?: object): void;
}
