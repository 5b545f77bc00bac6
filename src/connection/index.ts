/**
 * How the provider and the functions reach the service and speak to a Pulumi user: the connection
 * settings (argument, stack configuration, environment) and the messages with Pulumi advice.
 */
export {
  resolveConnection,
  dropEmpty,
  ConnectionError,
  CONFIG_ENDPOINT_KEY,
  CONFIG_TOKEN_KEY,
  ENV_ENDPOINT,
  ENV_TOKEN,
  type Connection,
  type ConnectionInputs,
  type ConnectionSources,
} from "./resolve";
export { notVisible, safeMessage, pulumiAdvice } from "./user-messages";
