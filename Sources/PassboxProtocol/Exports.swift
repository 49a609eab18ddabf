// The agent's protocol carries the server API's types (an account's activity, devices, recovery codes) and
// its error vocabulary: a module that speaks the agent's protocol sees them without a second import.
@_exported import PassboxServerAPI
