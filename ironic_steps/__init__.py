import warnings

from oslo_service import backend as _service_backend

# oslo.service depends on eventlet, and futurist imports it wherever it is
# installed.  We run on threads and never use it, so its warnings would
# only mislead operators: its own deprecation, and the deprecation of DSA
# that the import of its DNS support (dnspython) sets off in cryptography.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
warnings.filterwarnings('ignore', message='DSA is deprecated',
                        module=r'dns\.')

# oslo.versionedobjects and oslo.messaging import oslo.service: its
# threading backend, the one Ironic chooses too, not the eventlet one it
# would load by default.  Chosen before anything imports oslo.service,
# unless the importing program chose already.
if _service_backend.get_backend_type() is None:
    _service_backend.init_backend(_service_backend.BackendType.THREADING)
