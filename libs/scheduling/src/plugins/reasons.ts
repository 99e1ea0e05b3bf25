// Every filter reason code, re-exported from the plugin that returns it.
export { NODE_EXCLUDED } from './filters/node-excluded';
export { NODE_BLACKLISTED } from './filters/node-blacklist';
export { NODE_OFFLINE } from './filters/node-online';
export { NODE_DRAINING } from './filters/node-draining';
export { RUNTIME_UNAVAILABLE } from './filters/node-runtime';
export { MODEL_FRAMEWORK_UNAVAILABLE } from './filters/node-model-framework';
export { DOMAIN_AFFINITY, DOMAIN_ANTI_AFFINITY } from './filters/domain-affinity';
export { REGION_AFFINITY, REGION_ANTI_AFFINITY } from './filters/region-affinity';
export { DOMAIN_NO_USABLE_NODE } from './filters/domain-usable';
export { LABEL_MISMATCH, LABEL_CONSTRAINT_INVALID } from './filters/node-labels';
export {
  INSUFFICIENT_CPU,
  INSUFFICIENT_MEMORY,
  INSUFFICIENT_ACCELERATORS,
  INSUFFICIENT_BY_RESOURCE,
} from './filters/node-capacity';
export {
  DOMAIN_INSUFFICIENT_CPU,
  DOMAIN_INSUFFICIENT_MEMORY,
  DOMAIN_INSUFFICIENT_ACCELERATORS,
  DOMAIN_INSUFFICIENT_BY_RESOURCE,
} from './filters/domain-capacity';
export { DOMAIN_NO_FITTING_DEVICES } from './filters/domain-devices';
export {
  DEVICE_NONE,
  DEVICE_VENDOR_MODEL,
  DEVICE_UNHEALTHY,
  DEVICE_MEMORY,
  DEVICE_TFLOPS,
  DEVICE_BUSY,
  DEVICE_TOPOLOGY,
  DEVICE_COMPUTE_UNITS,
  DEVICE_SLICE_UNSUPPORTED,
} from '../devices/choose-devices';
