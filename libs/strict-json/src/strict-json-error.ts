/** Text that is not JSON, nests too deep, repeats a member name or is too long. */
export class StrictJsonError extends Error {}
