/**
 * The instances a door keeps, one per distinct setting its rows ask for. Some settings (the loopback
 * opt-in, and for the Code Mode form every per-request one) are fixed when an executor or server is
 * made, so a door cannot put them on a request: rows that agree share one instance and its warm
 * child instead of each paying for a new one.
 */
export class OnePerSetting<Key, Instance> {
  readonly #instances = new Map<Key, Instance>();

  /** The instance for `key`, made by `make` the first time a row asks for it. */
  for(key: Key, make: () => Instance): Instance {
    let instance = this.#instances.get(key);
    if (instance === undefined) {
      instance = make();
      this.#instances.set(key, instance);
    }
    return instance;
  }

  /** Every instance made so far, for the door's close. */
  all(): Instance[] {
    return [...this.#instances.values()];
  }
}
