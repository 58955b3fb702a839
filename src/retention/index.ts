export { PAGE_SLOTS, type RetentionOptions, runRetention } from "./tick.js";
