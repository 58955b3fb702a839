// Whether the signed-in key is read-only (GET /workspace's key.scope). Under such a key every
// control that would send a write (previews and dry runs are POSTs the API refuses too) is
// disabled and says why, instead of offering a request that can only end in 403 key_read_only.
import { createContext } from "preact";
import { useContext } from "preact/hooks";

export const READ_ONLY_REASON = "This key can read everything; every change is refused (403 key_read_only)";

export const ReadOnlyContext = createContext(false);

export function useReadOnly(): boolean {
  return useContext(ReadOnlyContext);
}

/** A writing control's disabled state and title: disabled, with the reason, under a read-only key. */
export function writeControl(readOnly: boolean, disabled = false): { disabled: boolean; title?: string } {
  return readOnly ? { disabled: true, title: READ_ONLY_REASON } : { disabled };
}
