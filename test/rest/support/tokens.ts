// The REST tests mint tokens as the gRPC tests do: one minter of the documented token.
export { ALL_SCOPES, mintToken, unsignedToken, type TokenClaims as Claims } from '../../grpc/support/tokens.js';
