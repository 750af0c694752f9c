/**
 * The parameters of one SQL statement assembled from parts that different modules write (a paid
 * order's row, its job row and its debit, say): each part binds its own values and writes the
 * placeholder it is given, so no part needs to know how many came before it.
 */
export class SqlParams {
  readonly values: unknown[] = [];

  /** The placeholder (`$n`) of `value`. */
  bind(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  /** Placeholders of `values`, comma-separated, for a VALUES list. */
  bindAll(values: readonly unknown[]): string {
    return values.map((v) => this.bind(v)).join(', ');
  }
}
