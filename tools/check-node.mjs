// Prints the Node the test run is under and fails below the floor (adr/0002).
// tools/run puts Node 24 first on PATH on machines that lack it; this check proves it took.
const [major] = process.versions.node.split('.').map(Number);
console.log(`node ${process.version} at ${process.execPath}`);
if (major < 24) {
  console.error(
    `Node ${process.version} is below the floor of this project (24). Run the README's commands, which bring Node 24.`,
  );
  process.exit(1);
}
