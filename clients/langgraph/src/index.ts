export { DEFAULT_COLLECTION, EngramStore, type EngramStoreOptions } from "./store.js";
