/**
 * @supolka/codemode-packages: bundles the npm packages an operator allows, so programs the codemode
 * executor runs may import them (the executor's docs/packages.md). The executor loads this package
 * when its `packages` option is set; it lives apart because it ships esbuild, a native binary no
 * other user of the executor needs (adr/0006).
 */
export {
  BUNDLE_SIZE_LIMIT,
  BUNDLE_TIMEOUT,
  type BundleOptions,
  bundlePackages,
  NODE_ENV,
  PACKAGE_SIZE_LIMIT,
} from './bundle.ts';
export { isPackageName, PackageConfigurationError, type PackageList } from './configuration.ts';
export { SUBPATH_LIMIT, TARGET_DEPTH_LIMIT } from './subpaths.ts';
