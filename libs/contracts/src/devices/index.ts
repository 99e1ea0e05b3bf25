export * from './device.schemas';
export * from './fingerprint';
export * from './exchange-rates';
export * from './topology';
export * from './device-request.schema';
