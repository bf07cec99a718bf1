// The tools of programs/restock.js, for `codemode-executor run --tools`: the default export maps
// each namespace the program calls to its functions, which run in the command's own process.
const stock = { apples: 12, pears: 0, plums: 7 };

export default {
  shop: {
    list: () => Object.keys(stock),
    count: (name) => stock[name] ?? 0,
    order: (name, amount) => {
      stock[name] = (stock[name] ?? 0) + amount;
      return `ordered ${amount} ${name}`;
    },
  },
};
