// Orders every fruit the shop has run out of. Statements, as a model often writes them: the command
// runs them as the body of an async function, so `return` gives the result.
const empty = [];
for (const name of await shop.list()) {
  if ((await shop.count(name)) === 0) empty.push(name);
}
for (const name of empty) console.log(await shop.order(name, 10));
return { restocked: empty, pears: await shop.count('pears') };
