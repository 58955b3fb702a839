// A table of rows with its column headings: every list of the console is one.
import type { ComponentChildren } from "preact";

/** A column heading: its text, right-aligned for numbers, or read only by screen readers. */
export type Column = string | { label: string; num?: boolean; hidden?: boolean };

export function TableHead(props: { columns: (Column | null | false)[] }) {
  return (
    <thead>
      <tr>
        {props.columns.map((column, i) => {
          if (!column) return null;
          const { label, num, hidden } = typeof column === "string" ? { label: column } : column;
          return (
            <th key={i} scope="col" class={num ? "num" : undefined}>
              {hidden ? <span class="sr-only">{label}</span> : label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/**
 * A table named `label` (its accessible name) with a heading row and `children` as its body rows,
 * in a box that scrolls sideways when the table is wider than the page (unless `bare`).
 */
export function DataTable(props: {
  label: string;
  columns: (Column | null | false)[];
  children: ComponentChildren;
  class?: string;
  caption?: ComponentChildren;
  bare?: boolean;
}) {
  const table = (
    <table aria-label={props.label} class={props.class}>
      {props.caption ? <caption>{props.caption}</caption> : null}
      <TableHead columns={props.columns} />
      <tbody>{props.children}</tbody>
    </table>
  );
  return props.bare ? table : <div class="table-wrap">{table}</div>;
}
