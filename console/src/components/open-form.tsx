// What a page shows when its address names nothing to open (no entity, no record id): one field
// and an Open button.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";

export function OpenForm(props: {
  id: string;
  label: string;
  onOpen: (value: string) => void;
  placeholder?: string;
  /** A class for the field besides "field". */
  fieldClass?: string;
  children?: ComponentChildren;
}) {
  const [value, setValue] = useState("");
  return (
    <form
      class="card field-row"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim()) props.onOpen(value.trim());
      }}
    >
      <div class={props.fieldClass ? `field ${props.fieldClass}` : "field"}>
        <label for={props.id}>{props.label}</label>
        <input
          id={props.id}
          value={value}
          spellcheck={false}
          placeholder={props.placeholder}
          onInput={(event) => setValue(event.currentTarget.value)}
        />
      </div>
      <div class="field field-button">
        <button type="submit" class="primary" disabled={!value.trim()}>
          Open
        </button>
      </div>
      {props.children}
    </form>
  );
}
