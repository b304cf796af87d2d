"""The installed version of ironic-steps, as pbr computes it."""

import pbr.version

version_info = pbr.version.VersionInfo('ironic-steps')
