package spirv_test

import "reflect"

// reflectFields maps the names of vkAPI's func fields to their addresses.
func reflectFields(api any) map[string]any {
	v := reflect.ValueOf(api).Elem()
	out := map[string]any{}
	for i := 0; i < v.NumField(); i++ {
		out[v.Type().Field(i).Name] = v.Field(i).Addr().Interface()
	}
	return out
}
