"""The driver/device listing loop of IREE's deployment guide, run on gree.

Only the import line differs from the guide (iree.runtime → iree_go.runtime).
"""
import iree_go.compiler as ireec
import iree_go.runtime as ireert

print("targets:", ireec.query_available_targets())
print("drivers:", ireert.system_setup.query_available_drivers())

for driver_name in ireert.system_setup.query_available_drivers():
    print(driver_name)
    try:
        driver = ireert.get_driver(driver_name)
        device_infos = driver.query_available_devices()
        for device_info in device_infos:
            print(f"  {device_info}")
    except:
        print(f"  (failed to initialize)")
