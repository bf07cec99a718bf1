/**
 * The Node floor of this package (adr/0002): isolated-vm 6 and the module hooks the package uses
 * need Node 24. Below it, importing the package or running the CLI must fail with one sentence that
 * names the floor and the Node found, before any module that needs the newer Node is evaluated. A
 * module that leans on a newer Node never names the missing export in an `import` (ESM links every
 * named import before any code runs, so Node 20 would die on the link with a message about
 * `node:module` instead of this one).
 */
export const NODE_FLOOR = 24;

/** The sentence for a Node below the floor, or undefined when `version` meets it. */
export function belowNodeFloor(version: string = process.versions.node): string | undefined {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  if (major >= NODE_FLOOR) return undefined;
  return `@supolka/codemode-executor needs Node ${NODE_FLOOR} or newer, and this is Node ${version.replace(/^v/, '')}.`;
}
