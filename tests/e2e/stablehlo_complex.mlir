// Complex numbers and FFTs (complex tensors are carried as real tensors
// with a trailing dimension of 2 inside the compiler). Expected values
// from numpy in complex128, rounded to f32.

func.func @arithmetic() {
  %ar = util.unfoldable_constant dense<[1.5, -0.25, 3.0, -1.0]> : tensor<4xf32>
  %ai = util.unfoldable_constant dense<[-2.0, 0.5, 0.0, -1.0]> : tensor<4xf32>
  %a = stablehlo.complex %ar, %ai : tensor<4xcomplex<f32>>
  %b = util.unfoldable_constant dense<[(0.5, 1.0), (2.0, -3.0), (-1.5, 0.25), (0.75, 0.0)]> : tensor<4xcomplex<f32>>
  %sum = stablehlo.add %a, %b : tensor<4xcomplex<f32>>
  %diff = stablehlo.subtract %a, %b : tensor<4xcomplex<f32>>
  %prod = stablehlo.multiply %a, %b : tensor<4xcomplex<f32>>
  %quot = stablehlo.divide %a, %b : tensor<4xcomplex<f32>>
  %neg = stablehlo.negate %a : tensor<4xcomplex<f32>>
  %sumr = stablehlo.real %sum : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %sumi = stablehlo.imag %sum : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%sumr, dense<[2.0, 1.75, 1.5, -0.25]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%sumi, dense<[-1.0, -2.5, 0.25, -1.0]> : tensor<4xf32>) : tensor<4xf32>
  %diffr = stablehlo.real %diff : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %diffi = stablehlo.imag %diff : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%diffr, dense<[1.0, -2.25, 4.5, -1.75]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%diffi, dense<[-3.0, 3.5, -0.25, -1.0]> : tensor<4xf32>) : tensor<4xf32>
  %prodr = stablehlo.real %prod : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %prodi = stablehlo.imag %prod : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%prodr, dense<[2.75, 1.0, -4.5, -0.75]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%prodi, dense<[0.5, 1.75, 0.75, -0.75]> : tensor<4xf32>) : tensor<4xf32>
  %quotr = stablehlo.real %quot : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %quoti = stablehlo.imag %quot : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%quotr, dense<[-1.0, -0.1538461595773697, -1.9459459781646729, -1.3333333730697632]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%quoti, dense<[-2.0, 0.01923076994717121, -0.3243243098258972, -1.3333333730697632]> : tensor<4xf32>) : tensor<4xf32>
  %negr = stablehlo.real %neg : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %negi = stablehlo.imag %neg : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%negr, dense<[-1.5, 0.25, -3.0, 1.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%negi, dense<[2.0, -0.5, -0.0, 1.0]> : tensor<4xf32>) : tensor<4xf32>
  %abs = stablehlo.abs %a : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%abs, dense<[2.5, 0.55901700258255, 3.0, 1.4142135381698608]> : tensor<4xf32>) : tensor<4xf32>
  %eq = stablehlo.compare EQ, %a, %a : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  %ne = stablehlo.compare NE, %a, %b : (tensor<4xcomplex<f32>>, tensor<4xcomplex<f32>>) -> tensor<4xi1>
  check.expect_eq_const(%eq, dense<true> : tensor<4xi1>) : tensor<4xi1>
  check.expect_eq_const(%ne, dense<true> : tensor<4xi1>) : tensor<4xi1>
  return
}

func.func @transcendental() {
  %a = util.unfoldable_constant dense<[(1.5, -2.0), (-0.25, 0.5), (3.0, 0.0), (-1.0, -1.0)]> : tensor<4xcomplex<f32>>
  %b = util.unfoldable_constant dense<[(0.5, 1.0), (2.0, -3.0), (-1.5, 0.25), (0.75, 0.0)]> : tensor<4xcomplex<f32>>
  %exp = stablehlo.exponential %a : tensor<4xcomplex<f32>>
  %log = stablehlo.log %a : tensor<4xcomplex<f32>>
  %sqrt = stablehlo.sqrt %a : tensor<4xcomplex<f32>>
  %tanh = stablehlo.tanh %b : tensor<4xcomplex<f32>>
  %cos = stablehlo.cosine %b : tensor<4xcomplex<f32>>
  %pow = stablehlo.power %a, %b : tensor<4xcomplex<f32>>
  %rsq = stablehlo.rsqrt %b : tensor<4xcomplex<f32>>
  %sgn = stablehlo.sign %a : tensor<4xcomplex<f32>>
  %expr = stablehlo.real %exp : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %expi = stablehlo.imag %exp : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%expr, dense<[-1.8650407791137695, 0.6834619641304016, 20.08553695678711, 0.19876611232757568]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%expi, dense<[-4.075188159942627, 0.3733769953250885, 0.0, -0.3095598816871643]> : tensor<4xf32>) : tensor<4xf32>
  %logr = stablehlo.real %log : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %logi = stablehlo.imag %log : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%logr, dense<[0.9162907600402832, -0.5815753936767578, 1.0986123085021973, 0.3465735912322998]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%logi, dense<[-0.9272952079772949, 2.0344438552856445, 0.0, -2.356194496154785]> : tensor<4xf32>) : tensor<4xf32>
  %sqrtr = stablehlo.real %sqrt : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %sqrti = stablehlo.imag %sqrt : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%sqrtr, dense<[1.4142135381698608, 0.3930756747722626, 1.7320507764816284, 0.45508986711502075]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%sqrti, dense<[-0.7071067690849304, 0.6360098123550415, 0.0, -1.0986840724945068]> : tensor<4xf32>) : tensor<4xf32>
  %tanhr = stablehlo.real %tanh : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %tanhi = stablehlo.imag %tanh : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%tanhr, dense<[1.0428307056427002, 0.9653858542442322, -0.9152719378471375, 0.6351489424705505]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%tanhi, dense<[0.8068774342536926, 0.009884375147521496, 0.0438021756708622, 0.0]> : tensor<4xf32>) : tensor<4xf32>
  %cosr = stablehlo.real %cos : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %cosi = stablehlo.imag %cos : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%cosr, dense<[1.3541806936264038, -4.1896257400512695, 0.07295927405357361, 0.7316888570785522]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%cosi, dense<[-0.5634214878082275, 9.109228134155273, 0.2519795298576355, -0.0]> : tensor<4xf32>) : tensor<4xf32>
  %powr = stablehlo.real %pow : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %powi = stablehlo.imag %pow : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%powr, dense<[3.5941073894500732, 124.66441345214844, 0.18523693084716797, -0.2530008554458618]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%powi, dense<[1.7478830814361572, -63.25804138183594, 0.05219497159123421, -1.271921157836914]> : tensor<4xf32>) : tensor<4xf32>
  %rsqr = stablehlo.real %rsq : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %rsqi = stablehlo.imag %rsq : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%rsqr, dense<[0.8044958710670471, 0.4643254578113556, 0.06688535213470459, 1.154700517654419]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%rsqi, dense<[-0.49720579385757446, 0.24849943816661835, -0.8081598281860352, 0.0]> : tensor<4xf32>) : tensor<4xf32>
  %sgnr = stablehlo.real %sgn : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %sgni = stablehlo.imag %sgn : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%sgnr, dense<[0.6000000238418579, -0.4472135901451111, 1.0, -0.7071067690849304]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%sgni, dense<[-0.800000011920929, 0.8944271802902222, 0.0, -0.7071067690849304]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @structural_dot_and_sum() {
  %m = util.unfoldable_constant dense<[[(-1.0, 0.75), (-0.5, 1.0), (0.0, 1.25)], [(0.5, 0.0), (1.0, 0.25), (1.5, 0.5)]]> : tensor<2x3xcomplex<f32>>
  %n = util.unfoldable_constant dense<[[(-1.25, 2.5), (-0.75, 1.5)], [(-0.25, 0.5), (0.25, -0.5)], [(0.75, -1.5), (1.25, -2.5)]]> : tensor<3x2xcomplex<f32>>
  %t = stablehlo.transpose %m, dims = [1, 0] : (tensor<2x3xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  %tr = stablehlo.real %t : (tensor<3x2xcomplex<f32>>) -> tensor<3x2xf32>
  %ti = stablehlo.imag %t : (tensor<3x2xcomplex<f32>>) -> tensor<3x2xf32>
  check.expect_almost_eq_const(%tr, dense<[[-1.0, 0.5], [-0.5, 1.0], [0.0, 1.5]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  check.expect_almost_eq_const(%ti, dense<[[0.75, 0.0], [1.0, 0.25], [1.25, 0.5]]> : tensor<3x2xf32>) : tensor<3x2xf32>
  %d = stablehlo.dot_general %m, %n, contracting_dims = [1] x [0] : (tensor<2x3xcomplex<f32>>, tensor<3x2xcomplex<f32>>) -> tensor<2x2xcomplex<f32>>
  %dr = stablehlo.real %d : (tensor<2x2xcomplex<f32>>) -> tensor<2x2xf32>
  %di = stablehlo.imag %d : (tensor<2x2xcomplex<f32>>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%dr, dense<[[0.875, 3.125], [0.875, 3.125]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  check.expect_almost_eq_const(%di, dense<[[-3.0, 0.0], [-0.1875, -2.8125]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %z = stablehlo.constant dense<(0.0, 0.0)> : tensor<complex<f32>>
  %s = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x3xcomplex<f32>>, tensor<complex<f32>>) -> tensor<2xcomplex<f32>>
  %sr = stablehlo.real %s : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %si = stablehlo.imag %s : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  check.expect_almost_eq_const(%sr, dense<[-1.5, 3.0]> : tensor<2xf32>) : tensor<2xf32>
  check.expect_almost_eq_const(%si, dense<[3.0, 0.75]> : tensor<2xf32>) : tensor<2xf32>
  %sl = stablehlo.slice %m [0:2, 1:3] : (tensor<2x3xcomplex<f32>>) -> tensor<2x2xcomplex<f32>>
  %r = stablehlo.reshape %sl : (tensor<2x2xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %rr = stablehlo.real %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %ri = stablehlo.imag %r : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  check.expect_almost_eq_const(%rr, dense<[-0.5, 0.0, 1.0, 1.5]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_almost_eq_const(%ri, dense<[1.0, 1.25, 0.25, 0.5]> : tensor<4xf32>) : tensor<4xf32>
  return
}

func.func @fft_any_length_and_rank() {
  %x = util.unfoldable_constant dense<[(0.001230153371579945, 0.1054142490029335), (0.2987455427646637, -0.9304680228233337), (-0.27413785457611084, -0.02925182320177555), (-0.8905918598175049, 0.695303201675415), (-0.454670786857605, -1.3442145586013794), (-0.9916465282440186, -0.45761576294898987), (0.0601436011493206, -1.9012227058410645), (1.3402152061462402, -1.289537787437439), (-0.49220651388168335, -1.8417350053787231), (-0.6204748749732971, -0.23509113490581512), (0.4898420572280884, -1.267446517944336), (0.35688701272010803, 0.27126434445381165)]> : tensor<12xcomplex<f32>>
  %f = stablehlo.fft %x, type = FFT, length = [12] : (tensor<12xcomplex<f32>>) -> tensor<12xcomplex<f32>>
  %fr = stablehlo.real %f : (tensor<12xcomplex<f32>>) -> tensor<12xf32>
  %fi = stablehlo.imag %f : (tensor<12xcomplex<f32>>) -> tensor<12xf32>
  check.expect_almost_eq_const(%fr, dense<[-1.1766648292541504, 3.0369648933410645, 1.3203740119934082, -2.5216996669769287, -3.9888460636138916, -0.5012320280075073, -0.1629338413476944, 1.0141364336013794, 0.8164320588111877, 0.07870972901582718, 3.5598812103271484, -1.4603601694107056]> : tensor<12xf32>) : tensor<12xf32>
  check.expect_almost_eq_const(%fi, dense<[-8.224601745605469, 5.987692356109619, -2.4928417205810547, 2.237272024154663, -0.5543262362480164, 2.8450698852539062, -4.332311153411865, 1.1730709075927734, 4.772138595581055, -2.002500534057617, 0.05709141865372658, 1.7992171049118042]> : tensor<12xf32>) : tensor<12xf32>
  %y = util.unfoldable_constant dense<[[(0.15675108134746552, -0.03252170607447624), (-0.18693093955516815, 0.8843898773193359), (-2.5167596340179443, -0.5836004614830017), (-0.5386928915977478, -0.11170195043087006)], [(-0.048500943928956985, 0.11046414077281952), (0.11330898851156235, 0.06378177553415298), (-1.5301357507705688, -1.2250558137893677), (-0.47775328159332275, 0.07614023238420486)], [(-0.978519082069397, 1.3588234186172485), (-0.8088372349739075, -1.5471446514129639), (1.0608986616134644, 0.859382688999176), (-0.8075346946716309, 0.11935402452945709)]]> : tensor<3x4xcomplex<f32>>
  %g = stablehlo.fft %y, type = FFT, length = [3, 4] : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
  %gr = stablehlo.real %g : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xf32>
  %gi = stablehlo.imag %g : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xf32>
  check.expect_almost_eq_const(%gr, dense<[[-6.5627055168151855, 1.432962417602539, -1.1498255729675293, 2.7984931468963623], [-2.875704288482666, 4.998985290527344, -6.120630741119385, 2.3539505004882812], [0.18151286244392395, 4.576859474182129, 2.367302179336548, -0.12018702924251556]]> : tensor<3x4xf32>) : tensor<3x4xf32>
  check.expect_almost_eq_const(%gi, dense<[[-0.02768842503428459, 1.444517731666565, 1.0026729106903076, 3.327561140060425], [0.602973997592926, -4.905132293701172, -0.06186819449067116, -1.926313042640686], [-0.10558830201625824, 4.05856466293335, -5.107234954833984, 1.3072739839553833]]> : tensor<3x4xf32>) : tensor<3x4xf32>
  %h = stablehlo.fft %y, type = IFFT, length = [3, 4] : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xcomplex<f32>>
  %hr = stablehlo.real %h : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xf32>
  %hi = stablehlo.imag %h : (tensor<3x4xcomplex<f32>>) -> tensor<3x4xf32>
  check.expect_almost_eq_const(%hr, dense<[[-0.5468921661376953, 0.23320776224136353, -0.09581880271434784, 0.11941353976726532], [0.015126071870326996, -0.010015586391091347, 0.19727519154548645, 0.38140496611595154], [-0.23964202404022217, 0.19616255164146423, -0.5100525617599487, 0.4165821075439453]]> : tensor<3x4xf32>) : tensor<3x4xf32>
  check.expect_almost_eq_const(%hi, dense<[[-0.0023073686752468348, 0.2772967517375946, 0.08355607837438583, 0.12037648260593414], [-0.008799024857580662, 0.10893949866294861, -0.42560291290283203, 0.3382137417793274], [0.050247833132743835, -0.1605260819196701, -0.005155683029443026, -0.40876099467277527]]> : tensor<3x4xf32>) : tensor<3x4xf32>
  return
}

func.func @real_ffts() {
  %x = util.unfoldable_constant dense<[-0.6414703726768494, 2.0004165172576904, 0.7622597217559814, -1.1992888450622559, 0.07451622933149338, 0.576689600944519, -0.18878212571144104, 0.6829102635383606, -0.06651732325553894, 0.6672475337982178]> : tensor<10xf32>
  %f = stablehlo.fft %x, type = RFFT, length = [10] : (tensor<10xf32>) -> tensor<6xcomplex<f32>>
  %fr = stablehlo.real %f : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  %fi = stablehlo.imag %f : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  check.expect_almost_eq_const(%fr, dense<[2.6679811477661133, 1.4070346355438232, 0.5791542530059814, -3.0584499835968018, -2.075096845626831, -2.787968873977661]> : tensor<6xf32>) : tensor<6xf32>
  check.expect_almost_eq_const(%fi, dense<[0.0, 0.06348396092653275, -2.6109793186187744, -2.137516736984253, 1.9494373798370361, 0.0]> : tensor<6xf32>) : tensor<6xf32>
  %y = util.unfoldable_constant dense<[[1.4385225772857666, -0.6756622791290283, 0.20313860476016998], [-0.46330758929252625, 0.12726841866970062, -1.187194585800171]]> : tensor<2x3xf32>
  %g = stablehlo.fft %y, type = RFFT, length = [2, 3] : (tensor<2x3xf32>) -> tensor<2x2xcomplex<f32>>
  %gr = stablehlo.real %g : (tensor<2x2xcomplex<f32>>) -> tensor<2x2xf32>
  %gi = stablehlo.imag %g : (tensor<2x2xcomplex<f32>>) -> tensor<2x2xf32>
  check.expect_almost_eq_const(%gr, dense<[[-0.5572348833084106, 1.741439938545227], [2.4892325401306152, 1.6081289052963257]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  check.expect_almost_eq_const(%gi, dense<[[0.0, -0.3772944509983063], [0.0, 1.899422287940979]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  %z = util.unfoldable_constant dense<[(-0.5793015956878662, -0.7946423888206482), (-0.19619597494602203, 0.646903395652771), (0.89876389503479, -1.9924198389053345), (1.1452219486236572, -0.4631698727607727), (-1.3235278129577637, -0.09728692471981049)]> : tensor<5xcomplex<f32>>
  %i = stablehlo.fft %z, type = IRFFT, length = [9] : (tensor<5xcomplex<f32>>) -> tensor<9xf32>
  check.expect_almost_eq_const(%i, dense<[0.05213583633303642, 0.5262091755867004, -0.7053451538085938, -0.23009264469146729, -0.3146404027938843, 0.2172035276889801, 0.7483375668525696, -0.5189987421035767, -0.3541107773780823]> : tensor<9xf32>) : tensor<9xf32>
  return
}
