// Placeholder: filled in when the external tools (conformance, Inspector) are installed.
export default async function setup() {}
