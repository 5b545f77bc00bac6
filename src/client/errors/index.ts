export { CmsError } from "../../shared/errors/cms-error";
export { ApiError, type ApiErrorInit } from "./api-error";
export {
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  ValidationError,
  ConflictError,
  RateLimitedError,
  ServerError,
} from "./status-errors";
export { NetworkError, type NetworkErrorInit } from "./network-error";
export { UnprovenOwnershipError } from "./unproven-ownership-error";
export { ContractError } from "./contract-error";
export { InvalidIdError } from "./invalid-id-error";
export { DeadlineError, type DeadlineErrorInit } from "./deadline-error";
export { isNotFound, isConflict, isApiError, isTransient, statusOf } from "./predicates";
